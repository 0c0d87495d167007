/**
 * Watching a run by polling its `state` Query: a snapshot each time something changed, until the
 * run finishes. A run that stops any other way (failed, terminated, timed out, cancelled) ends
 * the watch with its failure, so a watcher never polls a dead run for ever. Node-only.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunState } from '../workflows/contract/index.js';
import type { AgentRunHandle } from './agent-run-handle.js';

export interface PollOptions {
  /** Time between two polls, in ms. Default 300. */
  readonly intervalMs?: number;
  /** Stops the watch (the iterator throws the signal's reason). */
  readonly signal?: AbortSignal;
  /** How long a just-started run may take to answer its first Query, in ms. Default 10,000. */
  readonly startGraceMs?: number;
}

/**
 * The run's state when first read and after every change, ending after the state whose phase is
 * `done`. When the run closed without finishing, throws what `result()` throws (WorkflowFailedError
 * with the cause: the failure, a termination, a timeout); an unknown run throws WorkflowNotFoundError.
 */
export async function* pollRun(run: AgentRunHandle, options: PollOptions = {}): AsyncGenerator<RunState, void> {
  const interval = options.intervalMs ?? 300;
  const giveUpAt = Date.now() + (options.startGraceMs ?? 10_000);
  let previous: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    let state: RunState | undefined;
    try {
      state = await run.state();
    } catch (error) {
      if ((error as Error).name === 'WorkflowNotFoundError') throw error;
      // A run that failed before it could answer Queries (an unknown agent, no model) says why here.
      if (await closed(run)) return;
      if (previous !== undefined || Date.now() > giveUpAt) throw error;
    }
    if (state) {
      const text = JSON.stringify(state);
      if (text !== previous) {
        previous = text;
        yield state;
        if (state.phase === 'done') return;
      } else if (await closed(run)) return;
    }
    await sleep(interval, undefined, options.signal ? { signal: options.signal } : {});
  }
}

/** True when the run completed; throws its failure when it closed any other way; false while it runs. */
async function closed(run: AgentRunHandle): Promise<boolean> {
  const { status } = await run.workflow.describe();
  if (status.name === 'RUNNING' || status.name === 'CONTINUED_AS_NEW') return false;
  await run.result();
  return true;
}
