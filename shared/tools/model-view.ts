/**
 * What the model sees of a tool result. Success: the result as it is. Failure: one short JSON
 * object — what failed (`error`), what to do about it (`hint`, only the fields that are set) and
 * what did come back (`partial`) — shaped like the API errors models learned from, never a stack
 * trace. Strings are bounded so one failure cannot flood the context. Workflow-safe, deterministic.
 */
import type { JsonObject, JsonValue } from '../json/json.js';
import type { RetryHint } from '../failures/retry-hint.js';
import type { ToolResult } from './tool-result.js';
import { errorChain } from '../failures/tool-error.js';
import { MAX_TEXT_LENGTH, truncateText } from '../json/bounded-text.js';
import { jsonSize } from '../json/json-measure.js';

/** `priorInput` is left out of the view when its JSON is larger than this (UTF-8 bytes). */
export const MAX_PRIOR_INPUT_BYTES = 2_000;
/** At most this many field issues are shown. */
export const MAX_ISSUES_SHOWN = 20;

/** Hint fields in the order the model reads them; `priorInput` is bounded separately. */
const HINT_FIELDS = [
  'reason',
  'tool',
  'message',
  'missingFields',
  'issues',
  'clarifyingQuestion',
  'exampleInput',
  'priorInput',
  'nextInput',
  'retryAfterMs',
  'availableTools',
  'restrictToTool',
] as const satisfies readonly (keyof RetryHint)[];

/** The model's view of one tool result (the `content` of its tool message). */
export function toModelView(result: ToolResult): JsonValue {
  if (result.status === 'ok') return result.result;
  if (result.status === 'validator_failed') {
    return {
      error: {
        kind: 'validation',
        code: 'validator_failed',
        validator: truncateText(result.validator),
        message: truncateText(result.feedback),
      },
    };
  }
  const { error, retryHint, partialResult } = result;
  const message = truncateText(error.message);
  // A wrapper often repeats its cause's message (a rethrown crash): show each message once in a row.
  const messages = errorChain(error).map((link) => truncateText(link.message));
  const causes = messages.slice(1).filter((text, i) => text !== messages[i]);
  const view: JsonObject = { error: { kind: error.kind, code: error.code, message, causes } };
  if (retryHint) view.hint = hintView(retryHint, message);
  if (partialResult !== undefined) view.partial = bounded(partialResult);
  return view;
}

function hintView(hint: RetryHint, errorMessage: string): JsonObject {
  const view: JsonObject = {};
  for (const field of HINT_FIELDS) {
    const value = hint[field] as JsonValue | undefined;
    if (value === undefined) continue;
    if (field === 'message' && truncateText(hint.message ?? '') === errorMessage) continue; // said once is enough
    if (field === 'priorInput' && jsonSize(value, MAX_PRIOR_INPUT_BYTES) > MAX_PRIOR_INPUT_BYTES) continue;
    view[field] =
      field === 'issues' && Array.isArray(value) ? bounded(value.slice(0, MAX_ISSUES_SHOWN)) : bounded(value);
  }
  return view;
}

/** `value` with every string cut to MAX_TEXT_LENGTH. Iterative: depth is no risk. */
function bounded(value: JsonValue): JsonValue {
  if (typeof value === 'string') return truncateText(value, MAX_TEXT_LENGTH);
  if (value === null || typeof value !== 'object') return value;
  const root: JsonValue[] = [];
  // Each entry: a source container and the fresh copy its bounded members go into.
  const work: [JsonValue[] | JsonObject, JsonValue[] | JsonObject][] = [];
  const copy = (item: JsonValue): JsonValue => {
    if (typeof item === 'string') return truncateText(item, MAX_TEXT_LENGTH);
    if (item === null || typeof item !== 'object') return item;
    const fresh: JsonValue[] | JsonObject = Array.isArray(item) ? [] : {};
    work.push([item, fresh]);
    return fresh;
  };
  root.push(copy(value));
  for (let entry = work.pop(); entry; entry = work.pop()) {
    const [source, target] = entry;
    if (Array.isArray(source)) for (const item of source) (target as JsonValue[]).push(copy(item));
    else
      for (const key of Object.keys(source))
        Object.defineProperty(target, key, {
          value: copy(source[key]!),
          enumerable: true,
          writable: true,
          configurable: true,
        });
  }
  return root[0]!;
}
