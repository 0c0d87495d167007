/**
 * Back-off delays: the tool's retry-after when it gave one, else exponential with jitter derived
 * from the call's key, so a replay computes the same delay. Workflow-safe, deterministic.
 */
import { fnv1a64 } from '../shared/identity/hash.js';
import { DEFAULT_POLICY, type BackoffPolicy } from './policy.js';

/**
 * Delay before run number `attempt + 1` of the call `key` (attempt counts from 1). With a
 * retry-after (at most `maxRetryAfterMs`): that as the floor, plus full jitter over the capped
 * exponential, so calls refused together do not come back together. Else exponential ± `jitter`,
 * never above `maxMs`.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, key: string, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    const spread = Math.min(policy.maxMs, policy.initialMs * policy.coefficient ** Math.max(0, attempt - 1));
    const fraction = parseInt(fnv1a64(`${key}#after#${attempt}`).slice(0, 8), 16) / 0x1_0000_0000;
    return Math.min(Math.ceil(retryAfterMs), maxRetryAfter(policy)) + Math.floor(fraction * spread);
  }
  // Capped before the jitter, so calls at the cap still spread out instead of retrying in lockstep.
  const base = Math.min(
    policy.initialMs * policy.coefficient ** Math.max(0, attempt - 1),
    policy.maxMs / (1 + policy.jitter),
  );
  // 32 bits of the hash → a fraction in [-1, 1).
  const unit = parseInt(fnv1a64(`${key}#${attempt}`).slice(0, 8), 16) / 0x80000000 - 1;
  return Math.max(0, Math.min(policy.maxMs, Math.round(base * (1 + policy.jitter * unit))));
}

/** The policy's retry-after ceiling; runs carried from before the setting existed get the default. */
export function maxRetryAfter(policy: BackoffPolicy): number {
  return policy.maxRetryAfterMs ?? DEFAULT_POLICY.backoff.maxRetryAfterMs;
}
