import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../shared/live/model-delta.js';
import { mergeLive } from './merge-live.js';

type Event = { type: string; turn: number };
const delta = (turn: number, text: string, n = 1): LiveEvent => ({
  at: 0,
  turn,
  call: `model:${turn}:${n}`,
  attempt: 1,
  type: 'model_delta',
  seq: 1,
  text,
});

/** An iterable whose items are released one by one by the test. */
function gated<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(...more: T[]) {
      items.push(...more);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) yield items.shift()!;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

describe('mergeLive', () => {
  it('interleaves as they arrive, drops live events of calls a model_turn closed, and stops the live side with the run', async () => {
    const run = gated<Event>();
    const live = gated<LiveEvent>();
    let liveSignal: AbortSignal | undefined;
    const merged = mergeLive(run, (signal) => ((liveSignal = signal), live));
    const out: string[] = [];
    const next = async () => {
      const r = await merged.next();
      if (!r.done) out.push(`${r.value.type}:${r.value.turn}${'text' in r.value ? `:${r.value.text}` : ''}`);
      return r;
    };
    run.push({ type: 'run_started', turn: 0 });
    await next();
    live.push(delta(1, 'Hel'));
    await next();
    live.push(delta(1, 'lo'));
    await next();
    // A model_turn's `turn` counts the turns before it: 0 for call model:1:1.
    run.push({ type: 'model_turn', turn: 0 });
    await next();
    // Late: model:1:1 is recorded. The planner's second call of the same turn goes through.
    live.push(delta(1, '!'), delta(1, 'Again', 2));
    await next();
    run.push({ type: 'model_turn', turn: 0 });
    await next();
    live.push(delta(1, ' late', 2), delta(2, 'Next'));
    await next();
    run.push({ type: 'finish', turn: 2 });
    await next();
    run.end();
    expect((await merged.next()).done).toBe(true);
    expect(out).toEqual([
      'run_started:0',
      'model_delta:1:Hel',
      'model_delta:1:lo',
      'model_turn:0',
      'model_delta:1:Again',
      'model_turn:0',
      'model_delta:2:Next',
      'finish:2',
    ]);
    expect(liveSignal?.aborted).toBe(true);
  });

  it('drops a call whose deltas all arrive after its model_turn, when the turn names its call', async () => {
    const run = gated<Event & { call?: string }>();
    const live = gated<LiveEvent>();
    const merged = mergeLive(run, () => live);
    const out: string[] = [];
    run.push({ type: 'model_turn', turn: 0, call: 'model:1:1' });
    out.push((await merged.next()).value!.type);
    live.push(delta(1, 'Hello'), delta(2, 'Next'));
    const next = (await merged.next()).value as LiveEvent & { text: string };
    out.push(`${next.type}:${next.text}`);
    run.end();
    expect((await merged.next()).done).toBe(true);
    expect(out).toEqual(['model_turn', 'model_delta:Next']);
  });

  it('goes on with the run’s events when the live side fails; a failing run stream ends it', async () => {
    const run = gated<Event>();
    const merged = mergeLive(run, () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('Redis is gone')) }),
    }));
    run.push({ type: 'run_started', turn: 0 });
    expect((await merged.next()).value).toEqual({ type: 'run_started', turn: 0 });
    run.end();
    expect((await merged.next()).done).toBe(true);

    const failing = mergeLive(
      { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('run failed')) }) },
      () => gated<LiveEvent>(),
    );
    await expect(failing.next()).rejects.toThrow('run failed');
  });
});
