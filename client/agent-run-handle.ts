/**
 * AgentRunHandle: one agent run, as a client sees it. Every method is one of the run's messages
 * (workflows/contract/) or a Temporal call on its workflow; the run, not this handle, decides
 * what it accepts (a refused answer or decision fails the Update with a `HumanInputError` and
 * leaves no trace in history). Addressed by workflow id, so it follows continue-as-new.
 * Reads given a deadline (`state({ deadlineMs })`, `readStream`) never wait on a worker longer:
 * without its answer they read what Temporal keeps of the run, marked `stale` — at once when no
 * worker polls the run's task queue (worker-presence.ts). Node-only (client side).
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { JsonValue } from '../shared/json/json.js';
import type { TranscriptMessage, TranscriptSlice } from '../shared/model/transcript.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import {
  answerClarificationUpdate,
  cancelSignal,
  extendBudgetUpdate,
  pauseSignal,
  resumeSignal,
  reviewToolCallUpdate,
  stateQuery,
  streamOffsetQuery,
  streamReadQuery,
  transcriptQuery,
  untilIdleUpdate,
  type AgentRunResult,
  type AgentRunWorkflow,
  type BudgetDecision,
  type ReviewDecisionInput,
  type RunState,
  type StepLogEntry,
  type StreamPollInput,
  type StreamPollResult,
} from '../workflows/contract/index.js';
import {
  deletePushTargetUpdate,
  pushTargetsQuery,
  setPushTargetUpdate,
  type PushTarget,
} from '../workflows/contract/status-push.js';
import { boundedRead } from './bounded-read.js';
import { finalStreamOf, finalStreamPage } from './final-stream.js';
import { NotPendingError } from './not-pending-error.js';
import { readRunRecord } from './run-record.js';
import { staleRunState, staleTranscript, type RunRecord } from './stale-state.js';
import { pollRun, type PollOptions } from './poll-run.js';
import { presenceOf, queryAnswered, queryMissed, type Presence } from './worker-presence.js';
import { runEvents, type EventOptions, type RunEventItem } from './run-events.js';
import { queriesFollowMoves } from './moved-run-query.js';
import { sendMessage, type SendOptions, type SendOutcome } from './send-message.js';

/** How long a read waits for the run's worker by default before it reads what Temporal keeps, in ms. */
export const DEFAULT_READ_DEADLINE_MS = 2_000;
/** After a read got no answer in time, the handle's next reads within this long do not wait again. */
const SILENT_MS = 10_000;
/** How long one read of the run's description or record serves the reads that follow on the handle. */
const RECORD_REUSE_MS = 2_000;

/** A read with a deadline. */
export interface ReadOptions {
  /** How long the run's worker has to answer, in ms. Default: the client's `readDeadlineMs` (2,000). */
  readonly deadlineMs?: number;
}

/** A page of the run's event log; `stale` when the run's worker did not answer in time (then empty). */
export type StreamPage = StreamPollResult & { readonly stale?: true };

export class AgentRunHandle {
  /** The Temporal handle, for anything this one does not wrap (describe, fetchHistory, terminate…). */
  readonly workflow: WorkflowHandle<AgentRunWorkflow>;
  /** How long reads with a deadline wait for the run's worker by default (the client's `readDeadlineMs`). */
  readonly readDeadlineMs: number;
  readonly #client: Client;
  /** Until when reads do not wait for the worker: a read just missed its deadline. */
  #silentUntil = 0;
  #record: { readonly at: number; readonly value: Promise<RunRecord> } | undefined;
  #description: { readonly at: number; readonly value: Promise<WorkflowExecutionDescription> } | undefined;

  constructor(
    client: Client,
    readonly workflowId: string,
    /** The first run's id, when this handle started the run. */
    readonly firstExecutionRunId?: string,
    options: { readonly readDeadlineMs?: number } = {},
  ) {
    this.#client = client;
    // An auto-upgrade run moves by continue-as-new: a Query that met it moving is asked again.
    this.workflow = queriesFollowMoves(client.workflow.getHandle<AgentRunWorkflow>(workflowId));
    this.readDeadlineMs = options.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS;
  }

  /**
   * The run's state: phase, turn, pending question and reviews, answer, steps.
   *
   * `state()` is the `state` Query alone: the freshest, but it needs a worker and waits for one.
   * `state({ deadlineMs })` (or `state({})`, for the client's `readDeadlineMs`, 2,000 ms) asks the
   * same Query, and when no worker answers within the deadline — every worker stopped, a deploy —
   * returns what Temporal keeps instead (`stale: true`: the status, search attributes and memos,
   * the start input and result; docs/run-api.md). A closed run with no worker to replay it reads
   * the same way. An unknown run throws WorkflowNotFoundError either way.
   *
   * ```ts
   * const state = await run.state({ deadlineMs: 2_000 });
   * if (state.stale) console.log('no worker answered: this may be behind');
   * ```
   */
  state(options?: ReadOptions): Promise<RunState> {
    if (options === undefined) return this.workflow.query(stateQuery);
    return this.#bounded(
      (deadline, signal) => this.#ask(deadline, signal, () => this.workflow.query(stateQuery)),
      async () => staleRunState(await this.record()),
      options,
    );
  }

  /**
   * One page of the run's event log from `from_offset` (the `cairnStreamRead` Query), within the
   * deadline (default the client's `readDeadlineMs`); without the worker's answer in time, a
   * completed run's page from its result in history, else an empty last page marked `stale`.
   */
  readStream(input: StreamPollInput, options: ReadOptions = {}): Promise<StreamPage> {
    return this.#bounded<StreamPage>(
      (deadline, signal) => this.#ask(deadline, signal, () => this.workflow.query(streamReadQuery, input)),
      async () => {
        const final = finalStreamOf((await this.record().catch(() => undefined))?.result);
        return final
          ? finalStreamPage(final, input)
          : { items: [], next_offset: input.from_offset, more_ready: false, stale: true };
      },
      options,
    );
  }

  /**
   * What Temporal keeps of the run, read without its worker: its status, memo and search
   * attributes, its start input and, once closed, its result or failure. What `state({ deadlineMs })`
   * falls back to; one read serves the handle's reads for a moment after it.
   */
  record(): Promise<RunRecord> {
    const now = Date.now();
    if (this.#record && now - this.#record.at <= RECORD_REUSE_MS) return this.#record.value;
    const value = readRunRecord(this.#client, this.workflowId, this.describe());
    const entry = { at: now, value };
    this.#record = entry;
    value.catch(() => {
      if (this.#record === entry) this.#record = undefined;
    });
    return value;
  }

  /**
   * The run's Temporal description (`workflow.describe()`: status, task queue, memo, search
   * attributes); one read serves the handle's reads for a moment after it. Throws
   * WorkflowNotFoundError for no run.
   */
  describe(): Promise<WorkflowExecutionDescription> {
    const now = Date.now();
    if (this.#description && now - this.#description.at <= RECORD_REUSE_MS) return this.#description.value;
    const value = this.workflow.describe();
    const entry = { at: now, value };
    this.#description = entry;
    value.catch(() => {
      if (this.#description === entry) this.#description = undefined;
    });
    return value;
  }

  /** A Query with its deadline, cancelled by `signal`. */
  #ask<T>(deadline: number, signal: AbortSignal, query: () => Promise<T>): Promise<T> {
    const connection = this.#client.connection;
    return connection.withAbortSignal(signal, () => connection.withDeadline(deadline, query));
  }

  /**
   * A read that waits for the worker at most the deadline, and not at all when no worker polls the
   * run's task queue (or just after one went unanswered on this handle).
   */
  async #bounded<T>(
    ask: (deadline: number, signal: AbortSignal) => Promise<T>,
    fallback: () => Promise<T>,
    options: ReadOptions,
  ): Promise<T> {
    const deadlineMs = Date.now() < this.#silentUntil ? 0 : (options.deadlineMs ?? this.readDeadlineMs);
    // Asked beside the Query, so a worker that answers waits on nothing more.
    const look = deadlineMs > 0 ? this.#presence() : undefined;
    const outcome = await boundedRead(
      ask,
      fallback,
      deadlineMs,
      look?.then((presence) => presence !== undefined && !presence.polled),
    );
    if (outcome.missed && deadlineMs > 0) this.#silentUntil = Date.now() + SILENT_MS;
    if (outcome.answered) this.#silentUntil = 0;
    void look?.then((presence) => {
      if (!presence) return;
      if (outcome.answered) queryAnswered(this.#client, presence.taskQueue);
      else if (outcome.missed) queryMissed(this.#client, presence.taskQueue, presence);
    });
    return outcome.value;
  }

  /** Whether a worker polls the run's task queue; undefined when that cannot be told. */
  #presence(): Promise<(Presence & { readonly taskQueue: string }) | undefined> {
    return this.describe().then(
      async ({ taskQueue }) => ({ ...(await presenceOf(this.#client, taskQueue)), taskQueue }),
      () => undefined,
    );
  }

  /**
   * The messages the model sees, whole or a slice (`{ from, length }`): the `transcript` Query.
   * With `options`, within its deadline; no answer in time: what the run's history tells without
   * its worker (the request, or a continued run's carried transcript, and a completed run's answer).
   */
  transcript(slice: Partial<TranscriptSlice> = {}, options?: ReadOptions): Promise<TranscriptMessage[]> {
    const query = { from: slice.from ?? 0, length: slice.length ?? Number.MAX_SAFE_INTEGER };
    if (options === undefined) return this.workflow.query(transcriptQuery, query);
    return this.#bounded(
      (deadline, signal) => this.#ask(deadline, signal, () => this.workflow.query(transcriptQuery, query)),
      async () => staleTranscript(await this.record()).slice(query.from, query.length),
      options,
    );
  }

  /**
   * Waits until the run awaits an answer or a review, is paused, or has finished, and returns its
   * state (the `untilIdle` Update). A run handing over to its continuation is asked again. Each
   * call writes a few history events: wait with this, watch with `steps()` or `state()`.
   */
  async untilIdle(): Promise<RunState> {
    for (;;) {
      let state: RunState;
      try {
        state = await this.workflow.executeUpdate(untilIdleUpdate);
      } catch (error) {
        // A run that already closed cannot take an Update: a finished one still answers Queries.
        const { status } = await this.workflow.describe();
        if (status.name === 'COMPLETED') return this.state();
        if (status.name !== 'RUNNING' && status.name !== 'CONTINUED_AS_NEW') await this.workflow.result();
        throw error;
      }
      if (!state.continuingAsNew) return state;
    }
  }

  /**
   * Answers the pending question (or `questionId`): text, or an object of the missing fields.
   * Throws NotPendingError when no question is pending; the run may refuse the answer
   * (WorkflowUpdateFailedError whose cause says why).
   */
  async answer(answer: JsonValue, questionId?: string): Promise<{ readonly questionId: string }> {
    let id = questionId;
    if (id === undefined) {
      const state = await this.state();
      if (!state.clarification)
        throw new NotPendingError(
          'no_pending_question',
          `Run "${this.workflowId}" has no pending question (phase ${state.phase}).`,
        );
      id = state.clarification.id;
    }
    await this.workflow.executeUpdate(answerClarificationUpdate, { args: [{ id, answer }] });
    return { questionId: id };
  }

  /**
   * Decides a tool call held for review: `{ type: 'accept' }`, `{ type: 'edit', args }`,
   * `{ type: 'respond', content }` or `{ type: 'reject', reason? }`. Pass the pending review from
   * `state().reviews` (its `argsHash` pins the decision to the arguments a person saw), or just its
   * tool call id, and the run's current arguments are read first. Returns the review decided.
   */
  async review(
    review: string | Pick<PendingReview, 'toolCallId' | 'argsHash'>,
    decision: ReviewDecisionInput,
  ): Promise<PendingReview | Pick<PendingReview, 'toolCallId' | 'argsHash'>> {
    const target = typeof review === 'string' ? await this.pendingReview(review) : review;
    await this.workflow.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: target.toolCallId, argsHash: target.argsHash, decision }],
    });
    return target;
  }

  /**
   * Decides the pending budget request (`state().budget.pending`, or `requestId`): extend the budget
   * by `{ type: 'extend', tokens?, costUsd? }` (the limit used up must be extended), or
   * `{ type: 'stop', reason? }` ends the run `budget_exhausted`. Throws NotPendingError when none is
   * pending; the run may refuse the decision (WorkflowUpdateFailedError whose cause says why).
   */
  async extendBudget(decision: BudgetDecision, requestId?: string): Promise<{ readonly requestId: string }> {
    let id = requestId;
    if (id === undefined) {
      const state = await this.state();
      if (!state.budget?.pending)
        throw new NotPendingError(
          'no_pending_budget',
          `Run "${this.workflowId}" has no pending budget request (phase ${state.phase}).`,
        );
      id = state.budget.pending.id;
    }
    await this.workflow.executeUpdate(extendBudgetUpdate, { args: [{ id, decision }] });
    return { requestId: id };
  }

  /** The pending review of `toolCallId`; NotPendingError names the pending ones otherwise. */
  async pendingReview(toolCallId: string): Promise<PendingReview> {
    const state = await this.state();
    const found = state.reviews.find((r) => r.toolCallId === toolCallId);
    if (found) return found;
    const pending = state.reviews.map((r) => `${r.toolCallId} (${r.name})`).join(', ');
    throw new NotPendingError(
      'no_pending_review',
      `Run "${this.workflowId}" has no review pending for tool call "${toolCallId}"${pending ? `; pending: ${pending}` : ' (none is pending)'}.`,
    );
  }

  /**
   * Sends the run a message while it works: delivered as a user message before the next model
   * turn (or, under the agent's `onMessage: 'interrupt'`, cutting the model call in flight short).
   * Every outcome is a status: accepted, refused (busy, queue full, finishing, closed, invalid),
   * throttled by the server, or unknown (resend with its `updateId`: never taken twice).
   */
  send(text: string, options?: SendOptions): Promise<SendOutcome> {
    return sendMessage(this.workflow, text, options);
  }

  /** Holds the run between steps (a running model turn or tool call finishes first). */
  pause(): Promise<void> {
    return this.workflow.signal(pauseSignal);
  }

  resume(): Promise<void> {
    return this.workflow.signal(resumeSignal);
  }

  /** Ends the run gracefully: any wait ends and the model gives a final answer with no tools. */
  cancel(reason?: string): Promise<void> {
    return reason === undefined ? this.workflow.signal(cancelSignal) : this.workflow.signal(cancelSignal, reason);
  }

  /** The run's result once it finishes; a failed, terminated or timed-out run throws (WorkflowFailedError). */
  result(): Promise<AgentRunResult> {
    return this.workflow.result();
  }

  /** The run's state each time it changes, until it finishes; a run that fails throws. See `pollRun`. */
  states(options: PollOptions = {}): AsyncGenerator<RunState, void> {
    return pollRun(this, options);
  }

  /**
   * The run's live events (model turns, tool starts and ends with their ToolResults, decisions,
   * questions, reviews, what people sent, the finish), from `from` on, across continue-as-new:
   * the run's Workflow Streams log, read by long-poll Updates. Ends after the `finish` event; a
   * run that fails throws. Resume after a restart with `from: lastOffset + 1`.
   */
  events(options: EventOptions = {}): AsyncGenerator<RunEventItem, void> {
    return runEvents(this.workflow, options);
  }

  /**
   * Post the run's status to `target.url` at each change (A2A push notifications): add it, or
   * replace the target with its id. The run checks it first (`pushTargetProblem`); it hears the
   * current status at once.
   */
  async setPushTarget(target: PushTarget): Promise<PushTarget> {
    return this.workflow.executeUpdate(setPushTargetUpdate, { args: [target] });
  }

  /** Stop posting to the target with this id; true when there was one. */
  async deletePushTarget(id: string): Promise<boolean> {
    return this.workflow.executeUpdate(deletePushTargetUpdate, { args: [id] });
  }

  /** Where the run posts its status (the `pushTargets` Query). */
  pushTargets(): Promise<readonly PushTarget[]> {
    return this.workflow.query(pushTargetsQuery);
  }

  /** The offset the run's next event will get: read it before acting, then `events({ from })` shows what followed. */
  offset(): Promise<number> {
    return this.workflow.query(streamOffsetQuery);
  }

  /**
   * The planner's steps as they happen (the `state` Query's step log, polled and read by `seq`),
   * from the first one still in the log, until the run finishes; a run that fails throws.
   */
  async *steps(options: PollOptions & { readonly afterSeq?: number } = {}): AsyncGenerator<StepLogEntry, void> {
    let last = options.afterSeq ?? 0;
    for await (const state of pollRun(this, options))
      for (const step of state.steps) {
        if (step.seq <= last) continue;
        last = step.seq;
        yield step;
      }
  }
}
