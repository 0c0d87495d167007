/**
 * The output guard (seed 002's "thirty lines"): a tool's raw output becomes validated JSON, or a
 * failure of the right class — not JSON (`output_not_json`), the wrong shape
 * (`output_schema_violation`), or the right shape with the wrong meaning or only part of the data
 * (the tool's semantic check: `semantic_error`, `partial_data`). Runs in the tool activity after
 * `execute`; pure and deterministic itself, so it can also run in tests and workflows.
 */
import type { AnyTool } from '../tools/define-tool.js';
import type { JsonObject, JsonValue } from '../json/json.js';
import type { RetryHint } from '../failures/retry-hint.js';
import { FAILURES, type ToolErrorCode } from '../failures/failure-taxonomy.js';
import { fromError, toolError, type ToolError } from '../failures/tool-error.js';
import { describeJsonSyntaxError, parseJsonText } from '../json/json-text.js';
import { MAX_JSON_DEPTH, toJsonValue } from '../json/json-safe.js';
import { measureJson } from '../json/json-measure.js';
import { isJsonObject } from '../json/json.js';
import { countFieldIssues, summariseIssues, toFieldIssues } from './zod-issues.js';
import { ShadowRecorder, guardMode } from './shadow-guard.js';
import type { GuardName, ShadowViolation } from './shadow-violation.js';
import type { SemanticVerdict } from './semantic-check.js';
import { MAX_FIELD_ISSUES } from '../size-limits.js';

export type GuardOutcome =
  | { readonly ok: true; readonly value: JsonValue; readonly shadow?: readonly ShadowViolation[] }
  | {
      readonly ok: false;
      readonly error: ToolError;
      readonly hint: RetryHint;
      readonly partialResult?: JsonValue;
      readonly shadow?: readonly ShadowViolation[];
    };

const BROKEN =
  'Calling this tool again with the same arguments will fail the same way; try a different approach or tell the user.';

/**
 * Guard one output. Text is parsed as JSON when the tool declares an `output` schema (unless the
 * schema accepts the text itself); the value is checked against that schema, made JSON-safe, and
 * handed to the tool's `check` with the call's arguments. A guard in `shadow` mode (the tool's
 * `guardMode`) records what it would refuse in `shadow` and lets the output pass; the semantic
 * check is skipped for an output that failed a shadow schema (its input type does not hold).
 * Being JSON is always enforced: nothing else can enter history. Never throws.
 */
export function guardOutput(tool: AnyTool, rawOutput: unknown, args: JsonValue): GuardOutcome {
  const shadow = new ShadowRecorder();
  const withShadow = <T extends GuardOutcome>(outcome: T): T =>
    shadow.empty ? outcome : { ...outcome, shadow: shadow.violations() };
  const fail = (
    code: ToolErrorCode,
    message: string,
    extra: Partial<RetryHint> = {},
    partialResult?: JsonValue,
  ): GuardOutcome =>
    withShadow({
      ok: false,
      error: toolError(code, message),
      hint: {
        reason: FAILURES[code].reason,
        tool: tool.name,
        priorInput: args,
        message: extra.message ?? message,
        ...extra,
      },
      ...(partialResult === undefined ? {} : { partialResult }),
    });
  const outputMode = guardMode(tool.guardMode, 'output');
  const checkMode = guardMode(tool.guardMode, 'check');
  let guard: GuardName = 'output';
  let passing: JsonValue | undefined; // what passes on if a shadow guard throws after this point
  try {
    let output: unknown = rawOutput;
    let shaped = true; // the output holds the schema's type, so the check may read it
    const schema = tool.output;
    if (schema && typeof rawOutput === 'string' && !schema.safeParse(rawOutput).success) {
      const parsed = parseJsonText(rawOutput);
      if (!parsed.ok) {
        const message = `${tool.name} returned text that is not valid JSON: ${describeJsonSyntaxError(parsed.error)}.`;
        if (outputMode === 'enforce') return fail('output_not_json', message, { message: BROKEN });
        shadow.record('output', 'output_not_json', 'json_syntax', '', message);
        shaped = false;
      } else output = parsed.value;
    }
    // Schemas recurse (z.json(), z.lazy overflow the stack near 10,000 levels): depth first, iteratively.
    if (measureJson(output, { maxDepth: MAX_JSON_DEPTH }).stopped === 'depth') {
      return fail(
        'output_not_json',
        `${tool.name} returned a value nested over ${MAX_JSON_DEPTH} levels deep, which is not accepted as JSON; flatten it.`,
        { message: BROKEN },
      );
    }
    if (schema && shaped) {
      const checked = schema.safeParse(output);
      if (!checked.success) {
        const all = checked.error.issues;
        if (outputMode === 'enforce') {
          const issues = toFieldIssues(all, output, MAX_FIELD_ISSUES);
          const paths = [...new Set(issues.map((i) => i.path || '(the whole output)'))].join(', ');
          const message = `${tool.name} returned data outside its output schema at ${paths}: ${summariseIssues(issues, 3, countFieldIssues(all))}.`;
          return fail('output_schema_violation', message, { issues, message: BROKEN });
        }
        const seen = output;
        for (const issue of all)
          shadow.record(
            'output',
            'output_schema_violation',
            issue.code,
            issue.path,
            () => toFieldIssues([issue], seen, 1)[0]?.message ?? issue.message,
          );
        shaped = false;
      } else output = checked.data;
    }
    const json = toJsonValue(output);
    if (!json.ok)
      return fail('output_not_json', `${tool.name} returned a value that is not JSON: ${json.message}`, {
        message: BROKEN,
      });
    passing = json.value;
    if (!tool.check || !shaped) return withShadow({ ok: true, value: json.value });

    guard = 'check';
    const verdict: unknown = tool.check(output, args);
    if (verdict === undefined) return withShadow({ ok: true, value: json.value });
    const v = readVerdict(verdict);
    if (checkMode === 'shadow') {
      if (typeof v === 'string')
        shadow.record('check', 'internal_error', 'bad_verdict', '', `The semantic check of ${tool.name} ${v}.`);
      else shadow.record('check', v.code, v.code, '', v.message);
      return withShadow({ ok: true, value: json.value });
    }
    if (typeof v === 'string') return fail('internal_error', `The semantic check of ${tool.name} ${v}.`);
    const next = v.nextInput === undefined ? {} : { nextInput: v.nextInput };
    if (v.code === 'semantic_error') return fail('semantic_error', v.message, next);
    return fail('partial_data', v.message, next, v.partial ?? json.value);
  } catch (err) {
    // A schema or check that throws is a bug in the tool definition, not a crash worth retrying.
    const message = `The output guard of ${tool.name} threw: ${fromError(err).message}`;
    if (guardMode(tool.guardMode, guard) === 'enforce') return fail('internal_error', message);
    shadow.record(guard, 'internal_error', `${guard === 'output' ? 'schema' : 'check'}_threw`, '', message);
    const json = passing === undefined ? toJsonValue(rawOutput) : ({ ok: true, value: passing } as const);
    return json.ok
      ? withShadow({ ok: true, value: json.value })
      : fail('output_not_json', `${tool.name} returned a value that is not JSON: ${json.message}`, { message: BROKEN });
  }
}

/** The verdict as data, or what is wrong with it. */
function readVerdict(
  value: unknown,
): { code: SemanticVerdict['code']; message: string; nextInput?: JsonObject; partial?: JsonValue } | string {
  if (!isJsonObject(value as JsonValue)) return 'returned something other than a verdict object';
  const { code, message, nextInput, partial } = value as Record<string, unknown>;
  if (code !== 'semantic_error' && code !== 'partial_data')
    return `returned an unknown verdict code ${JSON.stringify(code)}`;
  if (typeof message !== 'string' || message.trim() === '') return 'returned a verdict without a message';
  const next = nextInput === undefined ? undefined : toJsonValue(nextInput);
  if (next && !(next.ok && isJsonObject(next.value))) return 'returned a nextInput that is not a JSON object';
  const part = partial === undefined ? undefined : toJsonValue(partial);
  if (part && !part.ok) return `returned a partial that is not JSON: ${part.message}`;
  return {
    code,
    message: message.trim(),
    ...(next?.ok && isJsonObject(next.value) ? { nextInput: next.value } : {}),
    ...(part?.ok ? { partial: part.value } : {}),
  };
}
