/**
 * withHeartbeats: a beat is a server round trip, so a quick call sends none; a slow one beats
 * often enough for its heartbeat timeout; details reach the server before the work begins.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it, vi } from 'vitest';
import { withHeartbeats } from './heartbeat.js';

function beating(info: { heartbeatTimeoutMs?: number } = {}) {
  const env = new MockActivityEnvironment(info);
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  return { env, beats };
}

describe('withHeartbeats', () => {
  it('sends no beat for a call done before its first interval', async () => {
    const { env, beats } = beating({ heartbeatTimeoutMs: 10_000 });
    expect(await env.run(() => withHeartbeats(() => 'done', 1_000))).toBe('done');
    expect(beats).toEqual([]);
  });

  it('sends its details at once, before the work runs', async () => {
    const { env, beats } = beating();
    const seen = await env.run(() => withHeartbeats(() => [...beats], 1_000, 'began'));
    expect(seen).toEqual(['began']);
  });

  it('beats twice per heartbeat timeout when that is shorter than the interval', async () => {
    vi.useFakeTimers();
    try {
      const { env, beats } = beating({ heartbeatTimeoutMs: 60 });
      let finish!: () => void;
      const running = env.run(() => withHeartbeats(() => new Promise<void>((resolve) => (finish = resolve)), 1_000));
      await vi.advanceTimersByTimeAsync(100);
      expect(beats).toHaveLength(3); // at 30, 60 and 90 ms; the worker's 1 s interval would have sent none
      finish();
      await running;
    } finally {
      vi.useRealTimers();
    }
  });
});
