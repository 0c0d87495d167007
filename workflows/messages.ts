/**
 * The run's messages, named by kind as in Temporal's samples. Clients (the CLI, tests, the UI)
 * import these definitions; the workflow installs their handlers. Workflow-safe.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { JsonValue } from '../shared/json/json.js';
import type { McpListing } from '../shared/mcp/mcp-server.js';
import { TRANSCRIPT_QUERY, type TranscriptMessage, type TranscriptSlice } from '../shared/model/transcript.js';
import type { DecidedReview } from './human-input.js';
import type { StreamState } from './run-stream.js';
import type { CarriedMessages } from './user-messages.js';
import type { BudgetDecision, BudgetRequest, ErrorSummary, PendingClarification, PendingReview, Phase, PlanStep, PlannerState, PolicyOverrides } from '../planner/index.js';
import type { RunOutcome } from '../shared/agent/run-outcome.js';
import type { RunUsage } from '../shared/model/model-usage.js';
import type { StepAction } from '../planner/step-action.js';

export { FAILING_END_CODES, RUN_END_CODES, isRunEndCode, type RunEndCode, type RunOutcome } from '../shared/agent/run-outcome.js';
export type { RunUsage, UsageTotals } from '../shared/model/model-usage.js';
export type { BudgetDecision, BudgetRequest } from '../planner/index.js';

export interface AgentRunInput {
  /** The agent's registered name. */
  readonly agent: string;
  readonly prompt: string;
  /** Overrides the agent's model, e.g. `scripted:orders-demo` or `openai:gpt-4.1-mini`. */
  readonly model?: string;
  readonly policy?: PolicyOverrides;
  /** Upsert Cairn's search attributes (CairnAgent, CairnPhase); the server must have them registered. */
  readonly searchAttributes?: boolean;
  /** Continue as new after this many model turns even if Temporal does not suggest it yet. */
  readonly continueAsNewAfterTurns?: number;
  /** The tenant the run belongs to (its owner; child runs inherit it). */
  readonly tenant?: string;
  /** The user who started the run, where known (child runs inherit it). */
  readonly user?: string;
  /** How many agent tools deep this run is (set for child runs; at most MAX_AGENT_DEPTH). */
  readonly depth?: number;
  /** Set by continue-as-new: where the previous run stopped. */
  readonly carried?: CarriedRun;
}

/** The agentRun workflow's signature, for typed client calls (`client.workflow.start<AgentRunWorkflow>('agentRun', …)`). */
export type AgentRunWorkflow = (input: AgentRunInput) => Promise<AgentRunResult>;

/** What a run hands to its continuation: compacted, and enough to resume any pending wait. */
export interface CarriedRun {
  readonly state: PlannerState;
  readonly step: PlanStep;
  readonly transcript: readonly TranscriptMessage[];
  readonly generation: number;
  /** An answer that arrived while the run was handing over, not yet acted on. */
  readonly answer?: JsonValue;
  /** Review decisions taken so far: pending ones still apply, repeats stay no-ops. */
  readonly decisions?: Readonly<Record<string, DecidedReview>>;
  /** The step log, so watchers see one story across the chain (numbering continues). */
  readonly steps?: readonly StepLogEntry[];
  /** The run was paused when it handed over, and stays paused. */
  readonly paused?: boolean;
  /** The live event stream's newest events and offset: offsets continue in the next run. */
  readonly stream?: StreamState;
  /** The MCP servers' tools as listed when the chain started (shared/mcp/mcp-server.ts). */
  readonly mcp?: readonly McpListing[];
  /** Messages people sent that the model has not read yet (user-messages.ts). */
  readonly messages?: CarriedMessages;
}

export interface AgentRunResult {
  /** The model's answer; for a run that `ended`, what the run says about why (or the forced final turn's answer). */
  readonly answer: string;
  /** Why the run ended early (a cap, a loop, a cancel), or null when the model finished. Kept for compatibility: read `outcome`. */
  readonly reason: string | null;
  /**
   * Answered (the model finished on its own), or ended with a stable code (`budget_exhausted`,
   * `limit_reached`, `cancelled`…; shared/agent/run-outcome.ts). Results of runs from before it lack it.
   * A run whose model cannot be used fails instead (its ApplicationFailure's type is the code), unless
   * its policy says `onModelFailure: 'end'`: then it completes with that code here.
   */
  readonly outcome: RunOutcome;
  /** Tokens and cost of the run's model calls, per model too, across continue-as-new. */
  readonly usage?: RunUsage;
  readonly turns: number;
  readonly toolCalls: number;
  /** How many times the run continued as new. */
  readonly generation: number;
  /** The latest tool errors, oldest first: a parent run chains them when this run was its tool. */
  readonly errors?: readonly ErrorSummary[];
}

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
  /** The tenant the run belongs to, and the user who started it, when given at start. */
  readonly tenant?: string;
  readonly user?: string;
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

/** A person's decision on the pending budget request. */
export interface BudgetExtensionInput {
  /** The pending request's id (`state.budget.pending.id`, e.g. `b1`). */
  readonly id: string;
  readonly decision: BudgetDecision;
}

export interface ClarificationAnswer {
  /** The pending clarification's id (see `stateQuery`). */
  readonly id: string;
  /** Text, or an object naming the missing fields. */
  readonly answer: JsonValue;
}

export type ReviewDecisionInput =
  | { readonly type: 'accept' }
  | { readonly type: 'edit'; readonly args: JsonValue }
  | { readonly type: 'respond'; readonly content: JsonValue }
  | { readonly type: 'reject'; readonly reason?: string };

export interface ReviewInput {
  readonly toolCallId: string;
  /** The hash of the arguments reviewed; a decision about other arguments is stale and refused. */
  readonly argsHash: string;
  readonly decision: ReviewDecisionInput;
}

export const stateQuery = defineQuery<RunState>('state');
/** Read by the model activity: the transcript is not resent through history every turn. */
export const transcriptQuery = defineQuery<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY);
/** Answer a pending clarification; the validator refuses a wrong id or answer without writing history. */
export const answerClarificationUpdate = defineUpdate<void, [ClarificationAnswer]>('answerClarification');
/** The same answer for clients that can only signal (the Temporal UI, scripts); invalid ones are ignored. */
export const answerClarificationSignal = defineSignal<[ClarificationAnswer]>('answerClarificationSignal');
/**
 * Waits until the run needs nobody but a human: it awaits an answer or a review, is paused, has
 * finished, or is continuing as new (then ask the new run again). Returns the state. Start a run
 * with it (update-with-start) to get, in one call, the first thing to show a person.
 */
export const untilIdleUpdate = defineUpdate<RunState>('untilIdle');
/**
 * Decide the pending budget request: extend by tokens and/or cost (the limit that is used up must
 * be extended), or stop the run (`budget_exhausted`). Refused without history when nothing is
 * pending, the id is stale, it was already decided, or the amounts are not usable.
 */
export const extendBudgetUpdate = defineUpdate<void, [BudgetExtensionInput]>('extendBudget');
/** Decide one pending tool-call review. */
export const reviewToolCallUpdate = defineUpdate<void, [ReviewInput]>('reviewToolCall');
/** The same decision for clients that can only signal, and for a parent run forwarding one; invalid ones are ignored. */
export const reviewToolCallSignal = defineSignal<[ReviewInput]>('reviewToolCallSignal');
/** From a child run to its parent: a person must act on the child (or no longer must). */
export const childStatusSignal = defineSignal<[ChildStatus]>('childStatus');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** End the run gracefully: a final model turn with no tools. */
export const cancelSignal = defineSignal<[string?]>('cancel');
