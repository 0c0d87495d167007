/**
 * What a run shows the people and programs watching it: its state (`stateQuery`, and
 * `untilIdleUpdate`, which waits until a person is needed), its transcript, its step log, and what
 * a child run tells its parent. Part of the run's contract (workflows/contract/index.ts): workflow-safe,
 * imported by the workflow (which installs the handlers) and by clients.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { TRANSCRIPT_QUERY, type TranscriptMessage, type TranscriptSlice } from '../../shared/model/transcript.js';
import type { RunOutcome } from '../../shared/agent/run-outcome.js';
import type { RunUsage } from '../../shared/model/model-usage.js';
import type {
  BudgetRequest,
  ErrorSummary,
  PendingClarification,
  PendingReview,
  Phase,
  StepAction,
} from '../../planner/index.js';

/** A child run started by an agent tool, as its parent shows it. */
export interface ChildLink {
  /** The parent's tool call that started the child. */
  readonly toolCallId: string;
  readonly agent: string;
  readonly workflowId: string;
  readonly runId: string;
}

/** What a child run tells its parent when a person must act on it, or no longer must. */
export interface ChildStatus {
  readonly workflowId: string;
  readonly runId: string;
  readonly clarification: PendingClarification | null;
  readonly reviews: readonly PendingReview[];
}

/** One step the planner chose, for people watching (CLI, demo, UI details). */
export interface StepLogEntry {
  readonly seq: number;
  readonly turn: number;
  /** The transcript's length when the step was chosen: what it reacted to comes before it. */
  readonly at: number;
  /** What the step is called (planner/step-action.ts). */
  readonly action: StepAction;
  readonly detail: string;
}

export interface RunState {
  readonly agent: string;
  /**
   * The version of the agent this run runs: a digest of its definition (shared/agent/agent-version.ts).
   * A run that moved to a newer build (an auto-upgrade at a safe point) shows the new one. Absent
   * in states of runs from before it.
   */
  readonly agentVersion?: string;
  readonly phase: Phase;
  readonly paused: boolean;
  readonly turn: number;
  readonly toolCalls: number;
  readonly failedBatchStreak: number;
  /**
   * The pending question: the run's own, or, while none, a child run's, its id prefixed with the
   * parent's tool call (`2.1/q1`) and `child` set. Answer it at the parent with that id, or at the
   * child with its own id.
   */
  readonly clarification: (PendingClarification & { readonly child?: ChildLink }) | null;
  /** Pending reviews: the run's own and its children's (tool call ids prefixed as above). */
  readonly reviews: readonly (PendingReview & { readonly child?: ChildLink })[];
  /** Child runs in progress (agent tools). */
  readonly children: readonly ChildLink[];
  readonly disabledTools: readonly string[];
  readonly lastErrors: readonly ErrorSummary[];
  readonly finalizing: string | null;
  readonly answer: string | null;
  readonly transcriptLength: number;
  readonly generation: number;
  /** This run is handing over to a new one (continue-as-new): ask the new run, by workflow id. */
  readonly continuingAsNew: boolean;
  /** The latest planner steps, oldest first (at most 50). */
  readonly steps: readonly StepLogEntry[];
  /** Why the run failed, when it did (e.g. `model_misconfigured`: its model cannot be used); the run's failure says the same. */
  readonly failure?: { readonly type: string; readonly message: string };
  /** The run's usage, its budget's limits (extensions included) and a pending budget request (always set by runs of this version). */
  readonly budget?: RunBudget;
  /** Set once the run has finished: answered, or ended with a code. */
  readonly outcome?: RunOutcome;
  /**
   * The run's workspace snapshot (docs/workspaces.md): the digest of its files after its last
   * workspace call; absent before the first, and for agents without a workspace.
   */
  readonly workspace?: string;
  /** The tenant the run belongs to, and the user who started it, when given at start. */
  readonly tenant?: string;
  readonly user?: string;
  /**
   * Never set by the run. Set by a client that read this state without the run's worker — none
   * answered the `state` Query within the read's deadline (`run.state({ deadlineMs })`), or the
   * state is an entry of a list, which never asks runs: it is what Temporal keeps of the run (its
   * status, search attributes and memo, its start input and its result), and may be behind the run.
   * What Temporal does not keep is empty (docs/run-api.md, "Reads without a worker").
   */
  readonly stale?: true;
}

/**
 * The run's spending, as `state.budget` shows it. `pending` is set while the run waits for a person
 * to extend its budget (or stop it): answer with `extendBudgetUpdate` (`run.extendBudget`) naming
 * `pending.id`. The run's phase is then `awaiting_budget`, and `untilIdle` returns.
 */
export interface RunBudget {
  /** Tokens in and out and cost so far, in total and per model spec. */
  readonly usage: RunUsage;
  /** The limits in force (the policy's plus extensions); null for none. */
  readonly maxTokens: number | null;
  readonly maxCostUsd: number | null;
  /** What people added so far. */
  readonly extended: { readonly tokens: number; readonly costUsd: number };
  /** The request waiting for a person, or null. */
  readonly pending: BudgetRequest | null;
}

export const stateQuery = defineQuery<RunState>('state');
/** Read by the model activity: the transcript is not resent through history every turn. */
export const transcriptQuery = defineQuery<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY);
/**
 * Waits until the run needs nobody but a human: it awaits an answer or a review, is paused, has
 * finished, or is continuing as new (then ask the new run again). Returns the state. Start a run
 * with it (update-with-start) to get, in one call, the first thing to show a person.
 */
export const untilIdleUpdate = defineUpdate<RunState>('untilIdle');
/** From a child run to its parent: a person must act on the child (or no longer must). */
export const childStatusSignal = defineSignal<[ChildStatus]>('childStatus');
