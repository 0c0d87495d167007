/**
 * A model provider that refuses for now (429, 529/overloaded, the worker's flow control) or fails
 * past Temporal's retries: the run waits on a durable timer (no model turn, no activity slot held)
 * and asks again, until the policy's patience is spent. Each wait is full jitter over a capped
 * exponential, on top of the provider's retry-after (its floor), so runs refused together do not
 * come back together. Flow control's wait is a reserved permit: waited exactly. None of it counts
 * against `maxModelRetries`. Workflow-safe, deterministic: the random number arrives as data.
 */
import { fnv1a64 } from '../shared/identity/hash.js';
import type { ModelFailure } from '../shared/model/model-response.js';
import type { BackoffPolicy } from './policy.js';
import { maxRetryAfter } from './backoff.js';

/**
 * The wait before asking the provider again after the `attempt`-th refusal (from 1): the retry-after
 * (at most `maxRetryAfterMs`) plus `unit` × min(maxMs, initialMs × coefficient^(attempt−1)), with
 * `unit` uniform in [0, 1). A flow-control permit (`throttled`) is waited exactly.
 */
export function providerWaitDelay(
  backoff: BackoffPolicy,
  attempt: number,
  unit: number,
  failure: ModelFailure,
  retryAfterMs?: number,
): number {
  const floor =
    retryAfterMs !== undefined && retryAfterMs >= 0 ? Math.min(Math.ceil(retryAfterMs), maxRetryAfter(backoff)) : 0;
  if (failure === 'throttled') return floor;
  const cap = Math.min(backoff.maxMs, backoff.initialMs * backoff.coefficient ** Math.max(0, attempt - 1));
  const u = Number.isFinite(unit) ? Math.min(Math.max(unit, 0), 1 - Number.EPSILON) : 0;
  return floor + Math.floor(u * cap);
}

/** A stand-in for the workflow's random number when none is given (the in-memory harness): from the run key and attempt. */
export function unitFromKey(key: string, attempt: number): number {
  return parseInt(fnv1a64(`${key}#provider#${attempt}`).slice(0, 8), 16) / 0x1_0000_0000;
}
