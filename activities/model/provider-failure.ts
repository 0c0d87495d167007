/**
 * Where a failed provider call lands in Cairn's taxonomy: an error outcome the planner acts on, a
 * `null` response the workflow's response check judges, or a thrown error Temporal retries.
 * Worker-side only.
 */
import { APICallError, InvalidResponseDataError } from '@ai-sdk/provider';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import { toolError } from '../../shared/failures/tool-error.js';
import { ModelNetworkError, ModelServerError } from './model-errors.js';
import { parseRetryAfter } from './retry-after.js';

/** Provider messages can carry whole HTML error pages: keep history small. */
const MAX_DETAIL = 300;

/**
 * Maps a provider failure onto a `ModelOutcome`, or throws when retrying unchanged is the answer.
 *
 * - 429 → `rate_limited` (failure `rate_limited`), with `retryAfterMs` from `retry-after-ms` / `Retry-After`.
 * - 529, 503, or a body saying "overloaded" → failure `overloaded`, with its retry-after: the workflow
 *   waits on a timer (no activity slot held) rather than Temporal retrying at once.
 * - 401, 403, 404 → failure `misconfigured` (code `internal_error`): bad key, no access, unknown
 *   model. The run ends `model_misconfigured`. Never `tool_unavailable`: no tool is involved.
 * - other 4xx (400, 413, 422…) → `internal_error`: the provider refused this request. Not retryable.
 * - other 5xx, 408, 409 → throws `ModelServerError`; no answer at all → throws `ModelNetworkError`
 *   (Temporal retries; past its retries the workflow waits for the provider, up to the run's patience).
 * - a 2xx body that is not a usable completion → `{ status: 'ok', response: null }` (seed 004's
 *   nil response), so the workflow's response check decides, as for any invalid response.
 * - cancellation and anything unrecognised are rethrown as they are.
 *
 * `secrets` (the API key) are masked out of every message, since messages reach history and logs.
 */
export function classifyProviderFailure(error: unknown, secrets: readonly string[] = []): ModelOutcome {
  if (InvalidResponseDataError.isInstance(error)) return { status: 'ok', response: null };
  if (!APICallError.isInstance(error)) throw error;
  const status = error.statusCode;
  const detail = describe(error, secrets);
  if (status === undefined) {
    throw new ModelNetworkError(`Model provider could not be reached: ${detail}`, { cause: error });
  }
  if (status >= 200 && status < 300) return { status: 'ok', response: null };
  const overloaded =
    status === 529 ||
    status === 503 ||
    (status >= 500 && /overloaded/i.test(`${error.message} ${error.responseBody ?? ''}`));
  if (status === 429 || overloaded) {
    const retryAfterMs = parseRetryAfter(error.responseHeaders);
    const wait = retryAfterMs === undefined ? '' : ` Retry after ${retryAfterMs} ms.`;
    const what = overloaded ? 'is overloaded' : 'rate-limited the call';
    return {
      status: 'error',
      error: toolError('rate_limited', `Model provider ${what} (HTTP ${status}): ${detail}.${wait}`),
      ...(retryAfterMs !== undefined && { retryAfterMs }),
      failure: overloaded ? 'overloaded' : 'rate_limited',
    };
  }
  if (status === 401 || status === 403 || status === 404) {
    const what = status === 404 ? 'does not know this model or endpoint' : 'refused the credentials';
    return {
      status: 'error',
      error: toolError(
        'internal_error',
        `Model provider ${what} (HTTP ${status}): ${detail}. Not retryable: fix the model configuration.`,
      ),
      failure: 'misconfigured',
    };
  }
  if (status >= 500 || status === 408 || status === 409) {
    throw new ModelServerError(`Model provider failed (HTTP ${status}): ${detail}`, status, { cause: error });
  }
  return {
    status: 'error',
    error: toolError(
      'internal_error',
      `Model provider rejected the request (HTTP ${status}): ${detail}. Not retryable unchanged.`,
    ),
  };
}

function describe(error: APICallError, secrets: readonly string[]): string {
  let message = error.message.replace(/\s+/g, ' ').replace(/[.\s]+$/, '') || 'no message';
  for (const secret of secrets) if (secret) message = message.replaceAll(secret, '[redacted]');
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
}
