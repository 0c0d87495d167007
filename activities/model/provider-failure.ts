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
 * - 429 → `rate_limited`, with `retryAfterMs` from `retry-after-ms` / `Retry-After`.
 * - 401, 403, 404 → `tool_unavailable`: bad key, no access, unknown model. Not retryable.
 * - other 4xx (400, 413, 422…) → `internal_error`: the provider refused this request. Not retryable.
 * - 5xx, 408, 409 → throws `ModelServerError`; no answer at all → throws `ModelNetworkError`.
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
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(error.responseHeaders);
    const wait = retryAfterMs === undefined ? '' : ` Retry after ${retryAfterMs} ms.`;
    return {
      status: 'error',
      error: toolError('rate_limited', `Model provider rate-limited the call (HTTP 429): ${detail}.${wait}`),
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }
  if (status === 401 || status === 403 || status === 404) {
    const what = status === 404 ? 'does not know this model or endpoint' : 'refused the credentials';
    return {
      status: 'error',
      error: toolError('tool_unavailable', `Model provider ${what} (HTTP ${status}): ${detail}. Not retryable: fix the model configuration.`),
    };
  }
  if (status >= 500 || status === 408 || status === 409) {
    throw new ModelServerError(`Model provider failed (HTTP ${status}): ${detail}`, status, { cause: error });
  }
  return {
    status: 'error',
    error: toolError('internal_error', `Model provider rejected the request (HTTP ${status}): ${detail}. Not retryable unchanged.`),
  };
}

function describe(error: APICallError, secrets: readonly string[]): string {
  let message = error.message.replace(/\s+/g, ' ').replace(/[.\s]+$/, '') || 'no message';
  for (const secret of secrets) if (secret) message = message.replaceAll(secret, '[redacted]');
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
}
