/**
 * A run's events and the live deltas of an ephemeral source (client/redis-live-source.ts) as one
 * stream, for a `run.events()` reader that shows a reply while it is written when the worker
 * streams through Redis. The two travel apart (Temporal, Redis), so they are interleaved as they
 * arrive; a live event of a model call that a `model_turn` has already closed is dropped (that
 * call's reply is recorded, and its text is the truth). A `model_turn` names its call (`call`, the
 * model activity's id) and closes it, and, since a run's model calls come one at a time, every
 * call seen before it too (for runs whose turns name no call). The run's events decide the end: when they end,
 * the live subscription is stopped. A live source that fails is left behind and the run's events go
 * on: deltas are a preview. Node-only (client side).
 */
import type { LiveEvent } from '../shared/live/model-delta.js';

type Next<T> = Promise<{ readonly from: 'run' | 'live'; readonly result: IteratorResult<T> }>;

/**
 * Interleaves `events` (e.g. `run.events()`) with the live events `live` subscribes to; `live` gets a
 * signal that aborts when the run's events end or the caller stops iterating:
 *
 *     for await (const e of mergeLive(run.events(), (signal) => source.subscribe(run.workflowId, { signal })))
 */
export async function* mergeLive<E extends { readonly type: string }, L extends LiveEvent>(
  events: AsyncIterable<E>,
  live: (signal: AbortSignal) => AsyncIterable<L>,
): AsyncGenerator<E | L, void> {
  const stop = new AbortController();
  const runs = events[Symbol.asyncIterator]();
  const lives = live(stop.signal)[Symbol.asyncIterator]();
  const tag = <T>(from: 'run' | 'live', next: Promise<IteratorResult<T>>): Next<T> =>
    next.then((result) => ({ from, result }));
  let runNext: Next<E> | undefined = tag('run', runs.next());
  let liveNext: Next<L> | undefined = tag('live', lives.next()).catch(() => ({
    from: 'live' as const,
    result: { done: true, value: undefined },
  }));
  const open = new Set<string>();
  const closed = new Set<string>();
  let finished = false;
  try {
    for (;;) {
      const { from, result } = await Promise.race(liveNext ? [runNext!, liveNext] : [runNext!]);
      if (from === 'run') {
        runNext = undefined;
        if (result.done) {
          finished = true;
          return;
        }
        const event = result.value as E;
        if (event.type === 'model_turn') {
          for (const call of open) closed.add(call);
          open.clear();
          const call = (event as { call?: unknown }).call;
          if (typeof call === 'string') closed.add(call);
        }
        yield event;
        runNext = tag('run', runs.next());
      } else {
        liveNext = undefined;
        if (result.done) continue;
        const event = result.value as L;
        if (!closed.has(event.call)) {
          open.add(event.call);
          yield event;
        }
        liveNext = tag('live', lives.next()).catch(() => ({
          from: 'live' as const,
          result: { done: true, value: undefined },
        }));
      }
    }
  } finally {
    stop.abort();
    // A caller that stopped early: the run's reader is told to end once its pending read settles.
    if (!finished) void runNext?.then(() => runs.return?.()).catch(() => {});
    if (!finished && !runNext) void Promise.resolve(runs.return?.()).catch(() => {});
  }
}
