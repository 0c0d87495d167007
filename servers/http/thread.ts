/**
 * The protocol seam: what every endpoint does to open a window on a thread, written once. Look
 * the thread's run up (Temporal's `WorkflowNotFoundError` is "no run yet"); act on it through the
 * gate, mapping a refusal to its HTTP answer the same way for every protocol (a run that closed is
 * 409 `run_closed`, on every path; 404 only for a run that never was); and know what the client
 * already saw (from the messages it sends back), so a window tells each thing once. A protocol
 * only parses its request and encodes the window's items. Node-only (client side).
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { runError } from './run-errors.js';
import { liveFromNow, type LiveFeed } from './run-window.js';
import { deliverMessage } from './user-message.js';
import { answerClarificationUpdate } from '../../workflows/contract/index.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';

/** Temporal's execution status name (`RUNNING`, `COMPLETED`, `FAILED`...), or `NONE` for a thread with no run yet. */
export type ThreadStatus = string;

export interface Thread {
  readonly workflowId: string;
  readonly run: AgentRunHandle;
  readonly status: ThreadStatus;
  /** The first execution's run id of the run's chain: names the run among the thread's runs (absent when there is none). */
  readonly firstRunId?: string;
}

export function isOpen(status: ThreadStatus): boolean {
  return status === 'RUNNING' || status === 'CONTINUED_AS_NEW';
}

/** The thread's run and its status. */
export async function lookupThread(ctx: HttpContext, workflowId: string): Promise<Thread> {
  const run = ctx.client.run(workflowId);
  try {
    const d = await run.workflow.describe();
    return { workflowId, run, status: d.status.name, firstRunId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') return { workflowId, run, status: 'NONE' };
    throw runError(error, workflowId);
  }
}

/** A run that closed: 409 `run_closed`, with how it ended. */
export function closedError(workflowId: string, status: ThreadStatus): HttpError {
  return new HttpError(
    409,
    'run_closed',
    `Run "${workflowId}" has finished (${status}): it takes no more answers or decisions; send a new message to start the thread's next run.`,
  );
}

/**
 * Runs `act` on `run` through the per-run gate; a failure becomes its HttpError. A failure that
 * could mean "the run is gone" (no such workflow, nothing pending) is told apart once: a run that
 * never was is 404, one that closed is 409 `run_closed`, else the refusal stands.
 */
export async function actOn<T>(ctx: HttpContext, run: AgentRunHandle, act: () => Promise<T>): Promise<T> {
  try {
    return await ctx.gate.run(run.workflowId, act);
  } catch (error) {
    throw await closedAware(ctx, run.workflowId, runError(error, run.workflowId));
  }
}

/** `error` as the thread's state explains it: `run_closed` when the run finished, 404 when it never was. */
export async function closedAware(ctx: HttpContext, workflowId: string, error: HttpError): Promise<HttpError> {
  if (error.code !== 'unknown_run' && error.code !== 'not_pending' && error.code !== 'run_closed') return error;
  const thread = await lookupThread(ctx, workflowId).catch(() => undefined);
  if (!thread) return error;
  if (thread.status === 'NONE') return new HttpError(404, 'unknown_run', `No run with id "${workflowId}".`);
  if (!isOpen(thread.status)) return closedError(workflowId, thread.status);
  return error;
}

/** What a client already has of a thread, read from the messages it sends back. */
export interface Seen {
  /** Tool calls it has (their start, arguments and end were sent). */
  readonly toolCalls: ReadonlySet<string>;
  /** Message ids it has. */
  readonly messages: ReadonlySet<string>;
  /** The assistant texts it has (to tell whether it has a closed run's final answer). */
  readonly texts: ReadonlySet<string>;
}

export const NOTHING_SEEN: Seen = { toolCalls: new Set(), messages: new Set(), texts: new Set() };

export function seen(toolCalls: Iterable<string>, messages: Iterable<string>, texts: Iterable<string>): Seen {
  return { toolCalls: new Set(toolCalls), messages: new Set(messages), texts: new Set(texts) };
}

/** How a person's message to a thread was taken: it answered the open question, or waits for the next model turn. */
export type Delivery = 'answered' | 'queued' | 'interrupting';

/** Where a window starts: the run, its offset, the live events written since, and what the request did. */
export interface WindowStart {
  readonly run: AgentRunHandle;
  readonly from: number;
  readonly live?: LiveFeed | undefined;
  /** The person's words went to the run: how. */
  readonly delivery?: { readonly delivery: Delivery; readonly id: string };
  /** The run had closed: its final answer, which the client lacks (no window follows). */
  readonly closed?: { readonly answer: string; readonly id: string; readonly cancelled: boolean };
}

/**
 * Opens a window: notes where the run's stream stands (`'now'`) or starts at `from`, subscribes
 * to live events from this moment, then does `act` (start the run, hand it an answer...): what
 * the act causes is in the window, what came before is not.
 */
export async function openWindow(
  ctx: HttpContext,
  workflowId: string,
  from: number | 'now',
  act: () => Promise<AgentRunHandle>,
): Promise<WindowStart> {
  const offset =
    from === 'now'
      ? await ctx.client
          .run(workflowId)
          .offset()
          .catch(async (error) => Promise.reject(await closedAware(ctx, workflowId, runError(error, workflowId))))
      : from;
  const live = await liveFromNow(ctx.live, workflowId);
  const run = await act();
  return { run, from: offset, live };
}

/**
 * A person's words to an open run: they answer its open question, or wait for the next model
 * turn (`run.send`). `updateId` (from the client's message id) makes a repeated request a no-op.
 */
export function toThread(ctx: HttpContext, run: AgentRunHandle, text: string, updateId: string): Promise<WindowStart> {
  return actOn(ctx, run, async () => {
    const from = await run.offset();
    const live = await liveFromNow(ctx.live, run.workflowId);
    const state = await run.state();
    const question = state.clarification;
    if (question) {
      await run.workflow.executeUpdate(answerClarificationUpdate, {
        args: [{ id: question.id, answer: text }],
        updateId,
      });
      return { run, from, live, delivery: { delivery: 'answered' as const, id: question.id } };
    }
    const sent = await deliverMessage(run, text, updateId);
    return { run, from, live, delivery: { delivery: sent.delivery, id: sent.id } };
  });
}

/**
 * An act on a run that closed: the run's final answer when the client lacks it (it is not among
 * the assistant texts it sent back), once; else 409 `run_closed`. Never a new run.
 */
export async function closedOutcome(thread: Thread, had: Seen): Promise<WindowStart> {
  if (thread.status === 'COMPLETED') {
    const answer = (await thread.run.state({ deadlineMs: thread.run.readDeadlineMs }).catch(() => undefined))?.answer;
    if (answer && ![...had.texts].some((t) => t.includes(answer)))
      return {
        run: thread.run,
        from: 0,
        closed: {
          answer,
          id: `m-final-${thread.firstRunId ?? thread.workflowId}`,
          cancelled: await cancelledByPerson(thread.run),
        },
      };
  }
  throw closedError(thread.workflowId, thread.status);
}

/**
 * True when `prompt` is what started the thread's closed run: the same request sent again (a
 * client that lost the run's only window retries it), not a new message. It gets the run's
 * outcome, not a second run.
 */
export async function startedWith(thread: Thread, prompt: string): Promise<boolean> {
  if (thread.status === 'NONE' || isOpen(thread.status)) return false;
  // Within the read deadline: with no worker, the run's history still tells what started it.
  const head = await thread.run.transcript({ from: 0, length: 2 }, {}).catch(() => []);
  return head.find((m) => m.role === 'user')?.content === prompt;
}

/** True when a person cancelled the run (its events hold a `human` cancel). */
async function cancelledByPerson(run: AgentRunHandle): Promise<boolean> {
  for (let from = 0, pages = 0; pages < 8; pages++) {
    const page = await run.readStream({ topics: ['human'], from_offset: from }).catch(() => undefined);
    if (!page) return false;
    if (page.items.some((item) => (decodeJsonItem(item.data) as { kind?: unknown } | undefined)?.kind === 'cancel'))
      return true;
    if (!page.more_ready) return false;
    from = page.next_offset;
  }
  return false;
}

/** Why a window ended in error: the run failed (its failure), or the error as HTTP. */
export async function windowFailure(ctx: HttpContext, workflowId: string, error: unknown): Promise<HttpError> {
  const thread = await lookupThread(ctx, workflowId).catch(() => undefined);
  if (
    thread &&
    (thread.status === 'FAILED' ||
      thread.status === 'TERMINATED' ||
      thread.status === 'TIMED_OUT' ||
      thread.status === 'CANCELED')
  ) {
    const failure = (await thread.run.state({ deadlineMs: thread.run.readDeadlineMs }).catch(() => undefined))?.failure;
    return new HttpError(
      500,
      'run_failed',
      failure ? `${failure.type}: ${failure.message}` : `Run "${workflowId}" ended ${thread.status}.`,
    );
  }
  const e = runError(error, workflowId);
  if (e.status >= 500) ctx.onError(error);
  return e;
}
