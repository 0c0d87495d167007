/** Back-off delays: the tool's retry-after when it is one, else exponential with per-call jitter. */
import { describe, expect, it } from 'vitest';
import { backoffDelay, maxRetryAfter } from './backoff.js';
import { DEFAULT_POLICY } from './policy.js';

const policy = DEFAULT_POLICY.backoff;

describe('backoffDelay', () => {
  it('takes a retry-after (rounded up) as the floor, with full jitter over the exponential above it', () => {
    const spread = (attempt: number) => Math.min(policy.maxMs, policy.initialMs * policy.coefficient ** (attempt - 1));
    for (const [attempt, after, floor] of [
      [3, 0, 0],
      [1, 1_500.2, 1_501],
      [9, 10, 10],
    ] as const) {
      const delays = Array.from({ length: 50 }, (_, i) => backoffDelay(policy, attempt, `k${i}`, after));
      for (const d of delays) expect(d).toBeGreaterThanOrEqual(floor);
      for (const d of delays) expect(d).toBeLessThan(floor + spread(attempt));
      expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(spread(attempt) / 2);
    }
  });

  it('ignores a negative retry-after: the exponential delay, as with none', () => {
    expect(backoffDelay(policy, 2, 'k', -5)).toBe(backoffDelay(policy, 2, 'k'));
    expect(backoffDelay(policy, 2, 'k', -5)).toBeGreaterThan(0);
  });

  it('caps a retry-after at the policy ceiling (the jitter comes on top)', () => {
    const delay = backoffDelay(policy, 1, 'k', maxRetryAfter(policy) * 10);
    expect(delay).toBeGreaterThanOrEqual(maxRetryAfter(policy));
    expect(delay).toBeLessThan(maxRetryAfter(policy) + policy.initialMs);
  });

  it('jitters around the exponential base within the policy, the same for the same call and attempt', () => {
    const delays = Array.from({ length: 200 }, (_, i) => backoffDelay(policy, 1, `call-${i}`));
    const low = policy.initialMs * (1 - policy.jitter);
    const high = policy.initialMs * (1 + policy.jitter);
    expect(delays.every((d) => d >= low && d <= high)).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(100); // spread out, not in lockstep
    expect(backoffDelay(policy, 1, 'call-7')).toBe(delays[7]);
  });

  // A run in flight replays its timers with these delays: a change of formula must be deliberate.
  it('keeps the delays runs already waited on', () => {
    expect(
      [1, 2, 3, 4].map((attempt) => backoffDelay(policy, attempt, 'lookup:{"order_id":"A-17"}')),
    ).toMatchInlineSnapshot(`
      [
        1011,
        2022,
        4044,
        8087,
      ]
    `);
  });
});
