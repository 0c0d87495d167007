/**
 * A window onto a run: its events from an offset until it next needs a person or finishes. One
 * HTTP request (an AG-UI run, an AI SDK chat turn) is one window; the durable run outlives it.
 * The window ends when the run waits (its state has a pending question or review and no event
 * came after the one that said so) or after the `finish` event; a run that fails throws. With a
 * live source (an ephemeral transport's reader) its live events are merged in by `mergeLive`.
 * Node-only (client side).
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { mergeLive } from '../../client/merge-live.js';
import type { LiveSource } from '../../client/redis-live-source.js';
import type { RunEventItem } from '../../client/run-events.js';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import type { RunState } from '../../workflows/contract/index.js';
import { pendingInterrupts } from './interrupts.js';

/** A window's live events from a source (not the run's own stream), subscribed when the window reads. */
export type LiveFeed = (signal: AbortSignal) => AsyncIterable<LiveEvent>;

/**
 * The source's live events of `workflowId` written from this moment on. Call it right after the
 * window's offset is taken and before the act that makes the run go on (start, answer, message):
 * entries written before are of model calls that began before the window (a finished one's text
 * is in the window's past, and a thread's earlier run reused its call ids), and a call under way
 * then is not streamed (`LiveWindow` skips an attempt it joined partway). Redis unreachable: `$`.
 */
export async function liveFromNow(source: LiveSource | undefined, workflowId: string): Promise<LiveFeed | undefined> {
  if (!source) return undefined;
  const from = (await source.position?.(workflowId).catch(() => undefined)) ?? '$';
  return (signal) => source.subscribe(workflowId, { signal, from });
}

export type WindowItem =
  /** A run event, or a live event from the window's live source (no `offset`). */
  | { readonly kind: 'event'; readonly event: RunEventItem | LiveEvent }
  /** The run waits for a person: the window's last item. */
  | { readonly kind: 'waiting'; readonly state: RunState }
  /** The run finished (after its `finish` event): the window's last item. */
  | { readonly kind: 'finished'; readonly state: RunState };

/** Events that may leave the run waiting for a person. */
const MAY_WAIT = new Set(['question', 'review', 'human', 'run_started', 'hand_over']);

export async function* runWindow(
  run: AgentRunHandle,
  from: number,
  signal?: AbortSignal,
  live?: LiveFeed,
): AsyncGenerator<WindowItem, void> {
  // Already waiting with nothing new to tell (a window opened on a waiting run from its offset).
  const first = await waitingNow(run, from - 1);
  if (first) {
    yield { kind: 'waiting', state: first };
    return;
  }
  const events = run.events({ from, ...(signal && { signal }) });
  for await (const event of live ? mergeLive(events, live) : events) {
    yield { kind: 'event', event };
    if (!('offset' in event)) continue;
    if (event.type === 'finish') {
      // Within the read deadline: a finished run with no worker to replay it reads from history.
      yield { kind: 'finished', state: await run.state({}) };
      return;
    }
    // A budget request is told by its decision (action `budget`).
    if (!MAY_WAIT.has(event.type) && !(event.type === 'decision' && event.action === 'budget')) continue;
    const state = await waitingNow(run, event.offset);
    if (state) {
      yield { kind: 'waiting', state };
      return;
    }
  }
}

/** The run's state when it waits for a person and nothing came after offset `last`. */
async function waitingNow(run: AgentRunHandle, last: number): Promise<RunState | undefined> {
  // A run that has not taken its first workflow task cannot answer Queries yet: it is not waiting.
  // A closed run with no worker answers from history (`done`); an open one's worker is waited for.
  let state = await run.state({}).catch(() => undefined);
  if (state?.stale && state.phase !== 'done') state = await run.state().catch(() => undefined);
  if (!state) return undefined;
  if (state.phase === 'done' || pendingInterrupts(state).length === 0) return undefined;
  return (await run.offset()) === last + 1 ? state : undefined;
}
