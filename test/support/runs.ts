/** Helpers to read what a run did from its real history. */
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { answerClarificationUpdate, stateQuery, type RunState } from '../../workflows/contract/index.js';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export async function events(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

/** Activity types scheduled, in order (callModel / runTool). */
export function scheduled(history: HistoryEvent[]): string[] {
  return history.flatMap((e) =>
    e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : [],
  );
}

/** Timers started, with their summaries as the UI shows them. */
export function timers(history: HistoryEvent[]): string[] {
  return history.flatMap((e) =>
    e.timerStartedEventAttributes
      ? [String(e.userMetadata?.summary?.data ? Buffer.from(e.userMetadata.summary.data).toString() : '')]
      : [],
  );
}

/**
 * Polls until `check` returns a value (e.g. the run awaits a human). The bound only turns a hang
 * into a failure: far above what a run needs on a loaded 2-core CI machine.
 */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 50_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The run's state once it reaches `phase` (by the `state` Query). A Query no worker took in time
 * (the server's "query timed out before a worker could process it", a busy machine) is asked again:
 * it says nothing about the run.
 */
export function awaiting(handle: WorkflowHandle, phase: RunState['phase']): Promise<RunState> {
  return waitFor(async () => {
    const s = await handle.query(stateQuery).catch((error: unknown) => {
      if (isUnansweredQuery(error)) return undefined;
      throw error;
    });
    return s?.phase === phase ? s : undefined;
  }, phase);
}

/** gRPC DEADLINE_EXCEEDED, anywhere in the cause chain: the Query was not answered, not refused. */
export function isUnansweredQuery(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === 4 || /query timed out before a worker could process it/i.test(String(e.message))) return true;
  return false;
}

/** Counts (and answers "no") the run's question, if it asks one: a run that asks cannot complete unanswered, so none is missed. */
export async function answerIfAsked(handle: WorkflowHandle, questions: Set<string>): Promise<void> {
  const state = await handle.query(stateQuery).catch(() => undefined);
  if (state?.phase !== 'awaiting_clarification' || !state.clarification) return;
  // With the question: a test that expects none shows why a run asked.
  questions.add(`${handle.workflowId}/${state.clarification.id}: ${state.clarification.question}`);
  await handle
    .executeUpdate(answerClarificationUpdate, { args: [{ id: state.clarification.id, answer: 'No, it did not.' }] })
    .catch(() => {});
}
