/**
 * Zod issues → FieldIssues: one plain-English problem per field, with a dotted path, what was
 * expected, what was received and, for enums, the allowed values. Zod v4 issues do not carry the
 * input by default, so values are looked up in the input along each issue's path.
 * Workflow-safe, deterministic.
 */
import type { z } from 'zod';
import type { JsonValue } from '../json/json.js';
import type { FieldIssue } from '../failures/retry-hint.js';
import { dottedPath } from '../json/dotted-path.js';
import { renderValue } from '../json/bounded-text.js';

export type ZodIssue = z.core.$ZodIssue;

/**
 * The issues as FieldIssues, in zod's order; one per unrecognized key. At most `max` of them:
 * a 100,000-item array of bad values yields 100,000 issues, and each one would enter history.
 */
export function toFieldIssues(
  issues: readonly ZodIssue[],
  input: unknown,
  max = Number.POSITIVE_INFINITY,
): FieldIssue[] {
  const fields: FieldIssue[] = [];
  for (const issue of issues) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: stopping early only saves work; the slice below caps the list
    if (fields.length >= max) break;
    fields.push(...convert(issue, input).slice(0, max - fields.length));
  }
  return fields;
}

/** How many FieldIssues `toFieldIssues` would give without a cap (unrecognized keys count one each). */
export function countFieldIssues(issues: readonly ZodIssue[]): number {
  return issues.reduce((sum, issue) => sum + (issue.code === 'unrecognized_keys' ? issue.keys.length : 1), 0);
}

/** True when the issue is about a key that is absent from the input (a missing required field). */
export function isMissingIssue(issue: ZodIssue, input: unknown): boolean {
  return issue.path.length > 0 && issue.code !== 'unrecognized_keys' && !lookup(input, issue.path).present;
}

/** Dotted paths of the missing required fields, without duplicates. */
export function missingFieldPaths(issues: readonly ZodIssue[], input: unknown): string[] {
  return [...new Set(issues.filter((issue) => isMissingIssue(issue, input)).map((issue) => dottedPath(issue.path)))];
}

/**
 * The first `max` issue messages as one clause, e.g. for a one-sentence hint; the rest are
 * counted (`total`, when `issues` is itself a capped list).
 */
export function summariseIssues(issues: readonly FieldIssue[], max = 3, total = issues.length): string {
  const shown = issues.slice(0, max).map((issue) => issue.message);
  const more = Math.max(total, issues.length) - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

function convert(issue: ZodIssue, input: unknown): FieldIssue[] {
  const path = dottedPath(issue.path);
  const label = path ? `\`${path}\`` : 'the input';
  const at = lookup(input, issue.path);
  const received = at.present ? describeValue(issue, at.value) : 'nothing';
  const base = { path, ...expectation(issue) };
  if (isMissingIssue(issue, input)) {
    const wanted = base.expected ? ` (${base.expected})` : '';
    return [{ ...base, message: `${label} is required${wanted} but is missing`, received: 'missing' }];
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const keyPath = dottedPath([...issue.path, key]);
        return {
          path: keyPath,
          message: `\`${keyPath}\` is not an accepted field; remove it`,
          received: renderValue(lookup(input, [...issue.path, key]).value),
        };
      });
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: on purpose, below
    case 'invalid_union':
      if (!base.expected)
        return [{ ...base, message: `${label} matches none of the accepted forms${closest(issue)}`, received }];
    // falls through: a union of simple types or literals reads like one expected value
    case 'invalid_type':
    case 'invalid_value':
    case 'too_small':
    case 'too_big':
    case 'not_multiple_of':
    case 'invalid_format':
      return [{ ...base, message: `${label} must be ${base.expected}, not ${received}`, received }];
    default:
      return [{ ...base, message: `${label}: ${issue.message}`, received }];
  }
}

/** `expected` (and `allowed` for enums) of an issue, phrased to follow "must be". */
function expectation(issue: ZodIssue): { expected?: string; allowed?: JsonValue[] } {
  switch (issue.code) {
    case 'invalid_type':
      return { expected: withArticle(TYPE_NAMES[issue.expected] ?? issue.expected) };
    case 'invalid_value':
      return enumOf(issue.values);
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const limit = Number(small ? issue.minimum : issue.maximum);
      const word = issue.exact ? 'exactly' : small ? 'at least' : 'at most';
      if (issue.origin === 'string') return { expected: `${word} ${limit} character(s) long` };
      if (['array', 'set', 'file'].includes(issue.origin)) return { expected: `${word} ${limit} item(s) long` };
      const op = issue.exact ? '=' : small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      return { expected: `${op} ${limit}` };
    }
    case 'not_multiple_of':
      return { expected: `a multiple of ${issue.divisor}` };
    case 'invalid_format':
      return {
        expected:
          issue.format === 'regex' && issue.pattern ? `a string matching ${issue.pattern}` : `a valid ${issue.format}`,
      };
    case 'invalid_union': {
      const options = 'options' in issue ? issue.options : undefined;
      if (options && options.length > 0) return enumOf(options);
      const branches = issue.errors;
      // A union of simple types or literals: list what each branch wanted.
      if (branches.length > 0 && branches.every((b) => b.length === 1 && b[0]!.path.length === 0)) {
        const firsts = branches.map((b) => b[0]!);
        if (firsts.every(isInvalidValue)) return enumOf(firsts.flatMap((i) => i.values));
        const parts = firsts.map((i) => expectation(i).expected).filter((e): e is string => e !== undefined);
        if (parts.length === firsts.length) return { expected: [...new Set(parts)].join(' or ') };
      }
      return {};
    }
  }
  return {};
}

function isInvalidValue(issue: ZodIssue): issue is ZodIssue & { code: 'invalid_value' } {
  return issue.code === 'invalid_value';
}

function enumOf(values: readonly unknown[]): { expected: string; allowed: JsonValue[] } {
  const allowed = values.filter(
    (v): v is JsonValue => v === null || ['string', 'number', 'boolean'].includes(typeof v),
  );
  const shown = allowed.map(String);
  return {
    expected: shown.length === 1 ? `exactly ${renderValue(allowed[0])}` : `one of ${shown.join(', ')}`,
    allowed,
  };
}

/** For a union of object shapes: the problem in the branch that came closest. */
function closest(issue: ZodIssue & { code: 'invalid_union' }): string {
  const best = [...issue.errors].sort((a, b) => a.length - b.length)[0];
  const first = best?.[0];
  if (!first) return '';
  const where = first.path.length > 0 ? `\`${dottedPath(first.path)}\`: ` : '';
  return `; closest: ${where}${first.message}`;
}

const TYPE_NAMES: Record<string, string> = { int: 'integer', nonoptional: 'value' };

function withArticle(noun: string): string {
  if (['null', 'undefined', 'never', 'void'].includes(noun)) return noun;
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** What was received: the value itself for enums, literals and sizes, else its JSON type. */
function describeValue(issue: ZodIssue, value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (issue.code === 'invalid_type') return withArticle(type);
  if ((issue.code === 'too_small' || issue.code === 'too_big') && (typeof value === 'string' || Array.isArray(value))) {
    return `${value.length} ${typeof value === 'string' ? 'character(s)' : 'item(s)'}`;
  }
  if (type === 'object' || type === 'array') return withArticle(type);
  return renderValue(value);
}

function lookup(input: unknown, path: readonly PropertyKey[]): { present: boolean; value?: unknown } {
  let current = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return { present: false };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current === undefined ? { present: false } : { present: true, value: current };
}
