import { describe, expect, it } from 'vitest';
import { LearnedPace } from './learned-pace.js';

describe('LearnedPace', () => {
  it('lets calls go until a refusal, then holds them past the retry-after, spread when no rate is known', () => {
    const pace = new LearnedPace(() => 0.5);
    expect(pace.admit('a', 0)).toEqual({ go: true });
    pace.refused(10, 2_000);
    expect(pace.admit('b', 100)).toEqual({ go: false, waitMs: 2_410 });
    expect(pace.admit('b', 2_010)).toEqual({ go: true });
  });

  it('paces at 90% of the rate the provider took, in reserved slots a call keeps across its retries', () => {
    const pace = new LearnedPace();
    for (let i = 0; i < 10; i++) pace.accepted(i * 50);
    pace.refused(500, 1_000);
    // 10 taken in the last second → one call per 1000 / 9 ms, from the end of the block.
    const waits = ['a', 'b', 'c'].map((key) => pace.admit(key, 600));
    expect(waits).toEqual([
      { go: false, waitMs: 900 },
      { go: false, waitMs: 1_012 },
      { go: false, waitMs: 1_123 },
    ]);
    // Coming back early, a call keeps its slot; at its slot it goes.
    expect(pace.admit('b', 1_000)).toEqual({ go: false, waitMs: 612 });
    expect(pace.admit('b', 1_612)).toEqual({ go: true });
    // A new call queues behind the reserved ones.
    expect(pace.admit('d', 1_612)).toEqual({ go: false, waitMs: 222 });
  });

  it('quickens by 10% every 2 s without a refusal, and slows by 10% on one, once a second at most', () => {
    const pace = new LearnedPace();
    for (let i = 0; i < 9; i++) pace.accepted(i * 100);
    pace.refused(900, 100); // 9 a second → 1000 / 8.1 ms
    expect(pace.admit('a', 1_000)).toEqual({ go: true });
    expect(pace.admit('b', 1_000)).toEqual({ go: false, waitMs: 124 });
    // 2 s later, quicker: 111 ms between slots.
    expect(pace.admit('c', 3_000)).toEqual({ go: true });
    expect(pace.admit('d', 3_000)).toEqual({ go: false, waitMs: 112 });
    pace.refused(3_500, 0);
    pace.refused(3_600, 0); // the same burst: not slower again
    expect(pace.admit('e', 3_600)).toEqual({ go: true });
    expect(pace.admit('f', 3_600)).toEqual({ go: false, waitMs: 124 });
  });

  it('forgets the pace after a minute without a refusal', () => {
    const pace = new LearnedPace();
    pace.accepted(0);
    pace.refused(10, 100);
    expect(pace.admit('a', 200).go).toBe(true);
    expect(pace.admit('b', 200).go).toBe(false);
    expect(pace.admit('c', 70_000)).toEqual({ go: true });
    expect(pace.admit('e', 70_000)).toEqual({ go: true });
  });
});
