/**
 * The tool boundary on the workflow side: a raw model tool call becomes a validated ToolCall, or
 * a structured failure with a RetryHint the model can act on — before any activity is scheduled.
 * Pure and deterministic, so it runs inside the workflow and replays identically.
 */
import type { AnyTool } from '../tools/define-tool.js';
import type { JsonObject, JsonValue } from '../json/json.js';
import type { RawToolCall } from '../model/model-response.js';
import type { RetryHint } from '../failures/retry-hint.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { ToolErrorCode } from '../failures/failure-taxonomy.js';
import { errorResult, type ToolFailureResult } from '../tools/tool-result.js';
import { fromError, toolError } from '../failures/tool-error.js';
import { argsHash } from '../identity/hash.js';
import { describeJsonSyntaxError, parseJsonText } from '../json/json-text.js';
import { toJsonValue } from '../json/json-safe.js';
import { isJsonObject } from '../json/json.js';
import { countFieldIssues, isMissingIssue, missingFieldPaths, summariseIssues, toFieldIssues } from './zod-issues.js';
import { fieldLabel } from './field-labels.js';
import { measureJson, utf8Bytes } from '../json/json-measure.js';
import { renderValue, truncateText } from '../json/bounded-text.js';
import { MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, MAX_FIELD_ISSUES } from '../size-limits.js';

/** A checked call: either valid (with its tool) or refused (with the failure to show the model). */
export type CheckedToolCall =
  | { readonly call: ToolCall; readonly argsHash: string; readonly tool: AnyTool; readonly failure?: undefined }
  | {
      readonly call: ToolCall;
      readonly argsHash: string;
      readonly tool?: AnyTool;
      readonly failure: ToolFailureResult;
    };

/**
 * Parse and validate one raw tool call: the tool must exist (else `unknown_tool`), the arguments
 * must be JSON text (`malformed_arguments`, empty text counts as `{}`), at most MAX_ARGUMENT_BYTES
 * and MAX_ARGUMENT_DEPTH levels deep (`invalid_arguments`: checked by an iterative scan before any
 * schema, hash or other recursive step sees them), and pass the tool's input schema
 * (`missing_fields` when only required keys are absent, else `invalid_arguments`). On success
 * `call.args` is the schema's output. `argsHash` hashes `call.args`, key order ignored; a refused
 * call that is not valid JSON, too large or too deep keeps its (bounded) text as `call.args`.
 * Never throws, whatever `raw` holds.
 */
export function checkToolCall(
  raw: RawToolCall,
  tools: readonly AnyTool[],
  ids: { readonly toolCallId: string },
): CheckedToolCall {
  const name = typeof raw.name === 'string' ? raw.name : '';
  const text = typeof raw.arguments === 'string' ? raw.arguments : undefined;
  const bytes = typeof raw.oversizeBytes === 'number' ? raw.oversizeBytes : text === undefined ? 0 : utf8Bytes(text);
  const oversize = bytes > MAX_ARGUMENT_BYTES;
  // What the call shows of itself until parsed: the text, cut to an excerpt when oversize.
  const shown: JsonValue = text === undefined ? null : oversize ? truncateText(text, EXCERPT_CHARS) : text;
  const parsed =
    text === undefined || oversize
      ? undefined
      : text.trim() === ''
        ? ({ ok: true, value: {} } as const)
        : parseJsonText(text);
  const tooDeep =
    parsed?.ok === true && measureJson(parsed.value, { maxDepth: MAX_ARGUMENT_DEPTH }).stopped === 'depth';
  const sent: JsonValue = parsed?.ok && !tooDeep ? parsed.value : shown;
  const makeCall = (args: JsonValue): ToolCall => ({
    toolCallId: ids.toolCallId,
    ...(typeof raw.id === 'string' ? { providerCallId: raw.id } : {}),
    name,
    args,
  });
  const refuse = (
    code: ToolErrorCode,
    message: string,
    hint: Omit<RetryHint, 'reason' | 'tool'>,
    tool?: AnyTool,
  ): CheckedToolCall => {
    const call = makeCall(sent);
    const failure = errorResult(call, toolError(code, message), hint);
    // Oversize calls hash their whole text: two that differ after the excerpt are different calls.
    return {
      call,
      argsHash: argsHash(oversize && text !== undefined ? text : sent),
      ...(tool ? { tool } : {}),
      failure,
    };
  };

  // The tool first: repairing the arguments of a tool that does not exist is pointless.
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const names = tools.map((t) => t.name);
    const message = `There is no tool named ${renderValue(raw.name, 100)}; call one of: ${names.join(', ') || '(none)'}.`;
    return refuse('unknown_tool', message, { availableTools: names, priorInput: sent, message });
  }
  const repair = { restrictToTool: true, ...exampleOf(tool), priorInput: sent };
  if (text === undefined) {
    const message = `The arguments for ${tool.name} are not JSON text (the model client sent ${renderValue(raw.arguments, 60)}); send them again as one JSON object.`;
    return refuse('malformed_arguments', message, { ...repair, message }, tool);
  }
  if (oversize) {
    const message = `The arguments for ${tool.name} are ${bytes} bytes of JSON, over the limit of ${MAX_ARGUMENT_BYTES} bytes; send less (fewer items, shorter text) or split the work into several calls.`;
    return refuse('invalid_arguments', message, { ...repair, message }, tool);
  }
  if (!parsed!.ok) {
    const message = `The arguments for ${tool.name} are not valid JSON: ${describeJsonSyntaxError(parsed!.error)}; send them again as one JSON object.`;
    return refuse('malformed_arguments', message, { ...repair, message }, tool);
  }
  if (tooDeep) {
    const message = `The arguments for ${tool.name} are nested too deep: more than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; send a flatter JSON object.`;
    return refuse('invalid_arguments', message, { ...repair, message }, tool);
  }
  const value = parsed!.value;

  let outcome: ReturnType<AnyTool['input']['safeParse']>;
  try {
    outcome = tool.input.safeParse(value);
  } catch (err) {
    // A schema that throws (async refinement, throwing transform) is a bug in the tool definition.
    const cause = fromError(err);
    return refuse('internal_error', `The input schema of ${tool.name} threw: ${cause.message}`, {}, tool);
  }
  if (!outcome.success) {
    const all = outcome.error.issues;
    const issues = toFieldIssues(all, value, MAX_FIELD_ISSUES);
    const missing = missingFieldPaths(all, value).slice(0, MAX_FIELD_ISSUES);
    const onlyMissing = all.every((issue) => isMissingIssue(issue, value));
    const code = onlyMissing ? 'missing_fields' : 'invalid_arguments';
    const message = onlyMissing
      ? `${tool.name} is missing required field(s) ${missing.join(', ')}; call it again with them filled in.`
      : `The arguments for ${tool.name} are invalid: ${summariseIssues(issues, 3, countFieldIssues(all))}; fix them and call it again.`;
    return refuse(
      code,
      message,
      {
        ...repair,
        ...(missing.length > 0 && {
          missingFields: missing,
          missingFieldLabels: missing.map((path) => fieldLabel(tool.input, path)),
        }),
        issues,
        message,
      },
      tool,
    );
  }
  const args = toJsonValue(outcome.data);
  if (!args.ok) {
    return refuse(
      'internal_error',
      `The input schema of ${tool.name} produced a value that is not JSON: ${args.message}`,
      {},
      tool,
    );
  }
  return { call: makeCall(args.value), argsHash: argsHash(args.value), tool };
}

/**
 * Why a reviewer's edited arguments were refused, said to the reviewer: what is wrong with the edit,
 * field by field, and that they can correct it and submit it again. `failure` is `checkToolCall`'s
 * for the edit; its own message is for the model ("call it again"), never shown to the reviewer.
 */
export function editRefusalMessage(failure: ToolFailureResult): string {
  const again = 'Correct the edit and submit it again.';
  const issues = failure.retryHint?.issues ?? [];
  if (issues.length > 0)
    return `The edited arguments are invalid for ${failure.name}: ${summariseIssues(issues, MAX_EDIT_ISSUES_SHOWN).replace(/\bthe input\b/, 'the arguments')}. ${again}`;
  // A fault of the tool's definition, not of the edit: submitting again cannot help.
  if (failure.error.code === 'internal_error')
    return `The edit could not be checked: ${failure.error.message}. This is a fault in the tool, not in your edit.`;
  // Too large or too deep: the model's message, up to its advice to the model.
  const what = failure.error.message.split('; ')[0]!.replace(/^The arguments for /, 'The edited arguments for ');
  return `${what.replace(/\.$/, '')}. ${again}`;
}

/** At most this many field problems are listed to a reviewer; the rest are counted. */
const MAX_EDIT_ISSUES_SHOWN = 10;

/** Characters of oversize argument text kept to show the model what it sent. */
const EXCERPT_CHARS = 500;

function exampleOf(tool: AnyTool): { exampleInput?: JsonObject } {
  const example: unknown = tool.examples?.[0];
  if (example === undefined) return {};
  const json = toJsonValue(example);
  return json.ok && isJsonObject(json.value) ? { exampleInput: json.value } : {};
}
