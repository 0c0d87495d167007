/**
 * Bounding a ToolResult before it leaves the activity: every result enters history as one
 * payload (Temporal refuses payloads over 2 MB) and, through the transcript, the model's context.
 * A success over the limit keeps what fits as `partial_data`, saying what was cut and how to get
 * the rest; a failure's messages, hint and partial result are cut to size. The output always fits
 * the limit. Workflow-safe, deterministic.
 */
import type { RetryHint } from '../failures/retry-hint.js';
import type { ToolFailureResult, ToolResult, ToolSuccess } from './tool-result.js';
import { errorResult } from './tool-result.js';
import { errorChain, toolError, type ToolError } from '../failures/tool-error.js';
import { boundText } from '../json/bounded-text.js';
import { describeCuts, fitJson } from '../json/fit-json.js';
import { jsonSize } from '../json/json-measure.js';
import {
  DEFAULT_MAX_RESULT_BYTES,
  HARD_MAX_RESULT_BYTES,
  MAX_FAILURE_MESSAGE_CHARS,
  MAX_FIELD_ISSUES,
  MAX_HINT_BYTES,
} from '../size-limits.js';

/** Where an oversize result was stored in full (see PayloadStore and the read_result tool). */
export interface StoredResult {
  readonly ref: string;
  /** Characters of the stored JSON text (what read_result pages through). */
  readonly chars: number;
}

/** The limit a tool's results get: its own, else the worker's, else the default; never above the hard maximum. */
export function resultLimit(toolMaxBytes: number | undefined, workerMaxBytes: number | undefined): number {
  const wanted = toolMaxBytes ?? workerMaxBytes ?? DEFAULT_MAX_RESULT_BYTES;
  return Math.max(4_096, Math.min(HARD_MAX_RESULT_BYTES, Math.floor(wanted)));
}

/** True when `result` as JSON is over `maxBytes`. Early exit: cheap for huge results. */
export function isOversize(result: ToolResult, maxBytes: number): boolean {
  return jsonSize(result, maxBytes) > maxBytes;
}

/**
 * `result` bounded to `maxBytes` of JSON. A success that fits, and any result already within
 * bounds, comes back unchanged. `stored` says where the whole oversize success was offloaded.
 */
export function boundToolResult(result: ToolResult, maxBytes: number, stored?: StoredResult): ToolResult {
  if (result.status === 'ok') return isOversize(result, maxBytes) ? oversizeSuccess(result, maxBytes, stored) : result;
  if (result.status === 'validator_failed') {
    return {
      ...result,
      validator: boundText(result.validator, 200),
      feedback: boundText(result.feedback, MAX_FAILURE_MESSAGE_CHARS),
    };
  }
  return boundFailure(result, maxBytes);
}

function oversizeSuccess(result: ToolSuccess, maxBytes: number, stored: StoredResult | undefined): ToolFailureResult {
  const bytes = jsonSize(result.result);
  // Room for the failure's own fields (error, hint, names): the partial gets the rest.
  const fitted = fitJson(result.result, Math.max(1_024, maxBytes - 6_144));
  const where = stored
    ? ` The whole result is stored: read its JSON text with read_result({ "ref": "${stored.ref}", "offset": 0, "length": 65536 }) (${stored.chars} characters in all).`
    : '';
  const message = `${result.name} returned ${bytes} bytes of JSON, over its limit of ${maxBytes}; only the start is kept (${describeCuts(fitted)}).${where}`;
  const advice = stored
    ? `Use the part kept, read the rest with read_result (ref "${stored.ref}"), or call ${result.name} again asking for less.`
    : `Use the part kept, or call ${result.name} again asking for less (a narrower query, a smaller page).`;
  const failure = errorResult(
    result,
    toolError('partial_data', message),
    { message: advice },
    { partialResult: fitted.value, telemetry: result.telemetry },
  );
  return result.shadow === undefined ? failure : { ...failure, shadow: result.shadow };
}

function boundFailure(result: ToolFailureResult, maxBytes: number): ToolFailureResult {
  const error = boundChain(result.error);
  let hint = result.retryHint === undefined ? undefined : boundHint(result.retryHint);
  let bounded: ToolFailureResult = { ...result, error, ...(hint === undefined ? {} : { retryHint: hint }) };
  if (!isOversize(bounded, maxBytes)) return bounded;
  if (bounded.partialResult !== undefined) {
    const { partialResult: _partial, ...rest } = bounded;
    const room = maxBytes - jsonSize(rest) - 64;
    const fitted = fitJson(bounded.partialResult, Math.max(0, room));
    bounded = room > 32 ? { ...rest, partialResult: fitted.value } : rest;
  }
  if (!isOversize(bounded, maxBytes) || hint === undefined) return bounded;
  // Still too large with a tiny limit: keep only the hint's reason, tool and message.
  hint = { reason: hint.reason, tool: hint.tool, ...(hint.message === undefined ? {} : { message: hint.message }) };
  return { ...bounded, retryHint: hint };
}

/** The chain with every message and name bounded (plain links: nothing else of a link is kept). */
export function boundChain(error: ToolError): ToolError {
  const links = errorChain(error);
  let chain: ToolError | undefined;
  for (let i = links.length - 1; i >= 0; i--) {
    const { code, kind, message, name } = links[i]!;
    const link: ToolError = {
      code,
      kind,
      message: boundText(message, MAX_FAILURE_MESSAGE_CHARS),
      ...(name === undefined ? {} : { name: boundText(name, 200) }),
    };
    chain = chain === undefined ? link : { ...link, cause: chain };
  }
  return chain!;
}

/** Texts bounded, lists capped; then, while over MAX_HINT_BYTES, the largest optional fields go. */
function boundHint(hint: RetryHint): RetryHint {
  let bounded: RetryHint = {
    ...hint,
    ...(hint.message === undefined ? {} : { message: boundText(hint.message, MAX_FAILURE_MESSAGE_CHARS) }),
    ...(hint.clarifyingQuestion === undefined
      ? {}
      : { clarifyingQuestion: boundText(hint.clarifyingQuestion, MAX_FAILURE_MESSAGE_CHARS) }),
    ...(hint.issues === undefined
      ? {}
      : {
          issues: hint.issues
            .slice(0, MAX_FIELD_ISSUES)
            .map((issue) => ({ ...issue, message: boundText(issue.message, 500) })),
        }),
    ...(hint.missingFields === undefined ? {} : { missingFields: hint.missingFields.slice(0, MAX_FIELD_ISSUES) }),
    ...(hint.availableTools === undefined ? {} : { availableTools: hint.availableTools.slice(0, 200) }),
  };
  while (jsonSize(bounded, MAX_HINT_BYTES) > MAX_HINT_BYTES) {
    const present = DROPPABLE.filter((field) => bounded[field] !== undefined);
    if (present.length === 0) break;
    const largest = present.reduce((a, b) => (jsonSize(bounded[a]) >= jsonSize(bounded[b]) ? a : b));
    const { [largest]: _dropped, ...rest } = bounded;
    bounded = rest as RetryHint;
  }
  return bounded;
}

/** Hint fields that help but are not essential: dropped, largest first, when a hint is too large. */
const DROPPABLE = ['priorInput', 'exampleInput', 'nextInput', 'issues', 'missingFields', 'availableTools'] as const;
