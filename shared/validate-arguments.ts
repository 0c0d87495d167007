/**
 * The tool boundary on the workflow side: a raw model tool call becomes a validated ToolCall, or
 * a structured failure with a RetryHint the model can act on — before any activity is scheduled.
 * Pure and deterministic, so it runs inside the workflow and replays identically.
 */
import type { AnyTool } from './define-tool.js';
import type { JsonObject, JsonValue } from './json.js';
import type { RawToolCall } from './model-response.js';
import type { RetryHint } from './retry-hint.js';
import type { ToolCall } from './tool-call.js';
import { FAILURES, type ToolErrorCode } from './failure-taxonomy.js';
import { NO_TELEMETRY, type ToolFailureResult } from './tool-result.js';
import { fromError, toolError } from './tool-error.js';
import { argsHash } from './hash.js';
import { describeJsonSyntaxError, parseJsonText } from './json-text.js';
import { toJsonValue } from './json-safe.js';
import { isJsonObject } from './json.js';
import { isMissingIssue, missingFieldPaths, summariseIssues, toFieldIssues } from './zod-issues.js';

/** A checked call: either valid (with its tool) or refused (with the failure to show the model). */
export type CheckedToolCall =
  | { readonly call: ToolCall; readonly argsHash: string; readonly tool: AnyTool; readonly failure?: undefined }
  | { readonly call: ToolCall; readonly argsHash: string; readonly tool?: AnyTool; readonly failure: ToolFailureResult };

/**
 * Parse and validate one raw tool call: the tool must exist (else `unknown_tool`), the arguments
 * must be JSON (`malformed_arguments`, empty text counts as `{}`) and pass the tool's input schema
 * (`missing_fields` when only required keys are absent, else `invalid_arguments`). On success
 * `call.args` is the schema's output. `argsHash` hashes `call.args`, key order ignored.
 */
export function checkToolCall(raw: RawToolCall, tools: readonly AnyTool[], ids: { readonly toolCallId: string }): CheckedToolCall {
  const parsed = raw.arguments.trim() === '' ? ({ ok: true, value: {} } as const) : parseJsonText(raw.arguments);
  const sent: JsonValue = parsed.ok ? parsed.value : raw.arguments;
  const makeCall = (args: JsonValue): ToolCall => ({
    toolCallId: ids.toolCallId,
    ...(raw.id === undefined ? {} : { providerCallId: raw.id }),
    name: raw.name,
    args,
  });
  const refuse = (code: ToolErrorCode, message: string, hint: Omit<RetryHint, 'reason' | 'tool'>, tool?: AnyTool): CheckedToolCall => {
    const call = makeCall(sent);
    const failure: ToolFailureResult = {
      status: 'error',
      name: raw.name,
      toolCallId: ids.toolCallId,
      error: toolError(code, message),
      retryHint: { reason: FAILURES[code].reason, tool: raw.name, ...hint },
      telemetry: NO_TELEMETRY,
    };
    return { call, argsHash: argsHash(sent), ...(tool ? { tool } : {}), failure };
  };

  // The tool first: repairing the arguments of a tool that does not exist is pointless.
  const tool = tools.find((t) => t.name === raw.name);
  if (!tool) {
    const names = tools.map((t) => t.name);
    const message = `There is no tool named "${raw.name}"; call one of: ${names.join(', ') || '(none)'}.`;
    return refuse('unknown_tool', message, { availableTools: names, priorInput: sent, message });
  }
  const repair = { restrictToTool: true, ...exampleOf(tool), priorInput: sent };
  if (!parsed.ok) {
    const message = `The arguments for ${tool.name} are not valid JSON: ${describeJsonSyntaxError(parsed.error)}; send them again as one JSON object.`;
    return refuse('malformed_arguments', message, { ...repair, message }, tool);
  }

  let outcome: ReturnType<AnyTool['input']['safeParse']>;
  try {
    outcome = tool.input.safeParse(parsed.value);
  } catch (err) {
    // A schema that throws (async refinement, throwing transform) is a bug in the tool definition.
    const cause = fromError(err);
    return refuse('internal_error', `The input schema of ${tool.name} threw: ${cause.message}`, {}, tool);
  }
  if (!outcome.success) {
    const issues = toFieldIssues(outcome.error.issues, parsed.value);
    const missing = missingFieldPaths(outcome.error.issues, parsed.value);
    const onlyMissing = outcome.error.issues.every((issue) => isMissingIssue(issue, parsed.value));
    const code = onlyMissing ? 'missing_fields' : 'invalid_arguments';
    const message = onlyMissing
      ? `${tool.name} is missing required field(s) ${missing.join(', ')}; call it again with them filled in.`
      : `The arguments for ${tool.name} are invalid: ${summariseIssues(issues)}; fix them and call it again.`;
    return refuse(code, message, { ...repair, ...(missing.length > 0 ? { missingFields: missing } : {}), issues, message }, tool);
  }
  const args = toJsonValue(outcome.data);
  if (!args.ok) {
    return refuse('internal_error', `The input schema of ${tool.name} produced a value that is not JSON: ${args.message}`, {}, tool);
  }
  return { call: makeCall(args.value), argsHash: argsHash(args.value), tool };
}

function exampleOf(tool: AnyTool): { exampleInput?: JsonObject } {
  const example: unknown = tool.examples?.[0];
  if (example === undefined) return {};
  const json = toJsonValue(example);
  return json.ok && isJsonObject(json.value) ? { exampleInput: json.value } : {};
}
