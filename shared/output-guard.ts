/**
 * The output guard (seed 002's "thirty lines"): a tool's raw output becomes validated JSON, or a
 * failure of the right class — not JSON (`output_not_json`), the wrong shape
 * (`output_schema_violation`), or the right shape with the wrong meaning or only part of the data
 * (the tool's semantic check: `semantic_error`, `partial_data`). Runs in the tool activity after
 * `execute`; pure and deterministic itself, so it can also run in tests and workflows.
 */
import type { AnyTool } from './define-tool.js';
import type { JsonObject, JsonValue } from './json.js';
import type { RetryHint } from './retry-hint.js';
import { FAILURES, type ToolErrorCode } from './failure-taxonomy.js';
import { fromError, toolError, type ToolError } from './tool-error.js';
import { describeJsonSyntaxError, parseJsonText } from './json-text.js';
import { toJsonValue } from './json-safe.js';
import { isJsonObject } from './json.js';
import { summariseIssues, toFieldIssues } from './zod-issues.js';

/** What a semantic check says about an output that passed the schema. */
export interface SemanticVerdict {
  /** `semantic_error`: rethink the call. `partial_data`: keep what came, fetch the rest. */
  readonly code: 'semantic_error' | 'partial_data';
  /** Plain advice for the model, e.g. "Page 1 of several; call again with page=2." */
  readonly message: string;
  /** Arguments to merge into the prior input for the next call, e.g. `{ page: 2 }`. */
  readonly nextInput?: JsonObject;
  /** For partial data: what to keep; defaults to the whole output. */
  readonly partial?: JsonValue;
}

/**
 * A tool's semantic check: `undefined` when the output makes sense. Must be pure. Declared as a
 * method type so a tool with specific types still fits `AnyTool`.
 */
export type SemanticCheck<Output = unknown, Args = unknown> = {
  check(output: Output, args: Args): SemanticVerdict | undefined;
}['check'];

export type GuardOutcome =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: ToolError; readonly hint: RetryHint; readonly partialResult?: JsonValue };

const BROKEN =
  'Calling this tool again with the same arguments will fail the same way; try a different approach or tell the user.';

/**
 * Guard one output. Text is parsed as JSON when the tool declares an `output` schema (unless the
 * schema accepts the text itself); the value is checked against that schema, made JSON-safe, and
 * handed to the tool's `check` with the call's arguments. Never throws.
 */
export function guardOutput(tool: AnyTool, rawOutput: unknown, args: JsonValue): GuardOutcome {
  const fail = (code: ToolErrorCode, message: string, extra: Partial<RetryHint> = {}, partialResult?: JsonValue): GuardOutcome => ({
    ok: false,
    error: toolError(code, message),
    hint: { reason: FAILURES[code].reason, tool: tool.name, priorInput: args, message: extra.message ?? message, ...extra },
    ...(partialResult === undefined ? {} : { partialResult }),
  });
  try {
    let output: unknown = rawOutput;
    const schema = tool.output;
    if (schema && typeof rawOutput === 'string' && !schema.safeParse(rawOutput).success) {
      const parsed = parseJsonText(rawOutput);
      if (!parsed.ok) {
        return fail('output_not_json', `${tool.name} returned text that is not valid JSON: ${describeJsonSyntaxError(parsed.error)}.`, { message: BROKEN });
      }
      output = parsed.value;
    }
    if (schema) {
      const checked = schema.safeParse(output);
      if (!checked.success) {
        const issues = toFieldIssues(checked.error.issues, output);
        const paths = [...new Set(issues.map((i) => i.path || '(the whole output)'))].join(', ');
        const message = `${tool.name} returned data outside its output schema at ${paths}: ${summariseIssues(issues)}.`;
        return fail('output_schema_violation', message, { issues, message: BROKEN });
      }
      output = checked.data;
    }
    const json = toJsonValue(output);
    if (!json.ok) return fail('output_not_json', `${tool.name} returned a value that is not JSON: ${json.message}`, { message: BROKEN });
    if (!tool.check) return { ok: true, value: json.value };

    const verdict: unknown = tool.check(output, args);
    if (verdict === undefined) return { ok: true, value: json.value };
    const v = readVerdict(verdict);
    if (typeof v === 'string') return fail('internal_error', `The semantic check of ${tool.name} ${v}.`);
    const next = v.nextInput === undefined ? {} : { nextInput: v.nextInput };
    if (v.code === 'semantic_error') return fail('semantic_error', v.message, next);
    return fail('partial_data', v.message, next, v.partial ?? json.value);
  } catch (err) {
    // A schema or check that throws is a bug in the tool definition, not a crash worth retrying.
    return fail('internal_error', `The output guard of ${tool.name} threw: ${fromError(err).message}`);
  }
}

/** The verdict as data, or what is wrong with it. */
function readVerdict(value: unknown): { code: SemanticVerdict['code']; message: string; nextInput?: JsonObject; partial?: JsonValue } | string {
  if (!isJsonObject(value as JsonValue)) return 'returned something other than a verdict object';
  const { code, message, nextInput, partial } = value as Record<string, unknown>;
  if (code !== 'semantic_error' && code !== 'partial_data') return `returned an unknown verdict code ${JSON.stringify(code)}`;
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
