/**
 * The planner's contract: its state, the steps it asks the workflow to take, and the plain data
 * the workflow hands back. No Temporal, no I/O: time arrives as `now`. Workflow-safe, deterministic.
 */
import type { ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import type { SideEffects } from '../shared/tools/define-tool.js';
import type { ReviewConfig } from '../shared/tools/review-config.js';
import type { PendingClarification } from '../shared/human-input/pending-clarification.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import type { OnceLedger } from '../shared/identity/once-key.js';
import type { TenantWindowSpent, ToolChoice } from '../shared/model/model-response.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { ReconcileCall } from '../shared/tools/reconcile.js';
import type { AgentPolicy } from './policy.js';
import type { RunEndCode } from '../shared/agent/run-outcome.js';
import type { RunUsage } from '../shared/model/model-usage.js';

export const Phase = {
  Model: 'model',
  Tools: 'tools',
  BackingOff: 'backing_off',
  AwaitingClarification: 'awaiting_clarification',
  AwaitingReview: 'awaiting_review',
  AwaitingBudget: 'awaiting_budget',
  Finalizing: 'finalizing',
  Done: 'done',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

export type { PendingClarification } from '../shared/human-input/pending-clarification.js';
export type { PendingReview } from '../shared/human-input/pending-review.js';

/** A model tool call after the workflow parsed and validated it (shared/guards/validate-arguments). */
export interface CheckedCall {
  readonly call: ToolCall;
  /** The hash of `call.args` (shared/identity/hash.ts); reviews name it. */
  readonly argsHash: string;
  /** `callKey(name, argsHash)`: the identity budgets and loop detection count by. */
  readonly key: string;
  readonly sideEffects: SideEffects;
  readonly needsApproval: boolean;
  /** A `once` tool with a `reconcile`: an unknown outcome is reconciled before anyone is asked. */
  readonly reconcile?: true;
  /** The tool's review config, for a call that needs approval. */
  readonly review?: ReviewConfig;
  /** Set when the call failed in the workflow (bad arguments, unknown tool): no activity runs. */
  readonly failure?: ToolResult;
}

interface BatchEntry {
  readonly call: ToolCall;
  readonly key: string;
  readonly sideEffects: SideEffects;
  /** The hash of the call's arguments (absent in batches carried from older runs). */
  readonly argsHash?: string;
  /** The tool has a `reconcile` (plan-reconcile.ts). */
  readonly reconcile?: true;
}

/** The tool calls of one model turn, and their results as they arrive. */
export interface Batch {
  readonly entries: readonly BatchEntry[];
  readonly results: Readonly<Record<string, ToolResult>>;
  /** Notes for the model recorded with the batch's results (e.g. what a reviewer changed). */
  readonly notes?: readonly string[];
  /** The idempotency key of each `once` call that ran, by tool call id (once-keys.ts). */
  readonly onceKeys?: Readonly<Record<string, string>>;
  /** Results held while their unknown outcomes are reconciled (plan-reconcile.ts). */
  readonly reconciling?: readonly ToolResult[];
  /** Reconciles asked per tool call id: bounded, so a call never loops between reconcile and re-run. */
  readonly reconciles?: Readonly<Record<string, number>>;
  /**
   * Runs again per tool call id of `once` calls that never began (plan-reconcile.ts): bounded too,
   * and apart from `reconciles`, so a busy worker's misses do not use up a later reconcile.
   */
  readonly notBegun?: Readonly<Record<string, number>>;
}

export interface ErrorSummary {
  readonly toolCallId: string;
  readonly tool: string;
  readonly code: ToolErrorCode;
  readonly message: string;
}

export interface PlannerState {
  readonly policy: AgentPolicy;
  readonly tools: readonly string[];
  readonly phase: Phase;
  /** Model responses received. */
  readonly turn: number;
  readonly toolCallsUsed: number;
  readonly failedBatchStreak: number;
  readonly modelRetries: number;
  readonly nudges: number;
  readonly startedAt: number;
  /** Time spent waiting for humans (answers, reviews, pauses); not counted against the budget. */
  readonly humanWaitMs: number;
  readonly waitingSince: number | null;
  /** Runs per call key in the current turn. */
  readonly attempts: Readonly<Record<string, number>>;
  /** The same call failing the same way, across turns. */
  readonly failureStreaks: Readonly<Record<string, { readonly code: ToolErrorCode; readonly count: number }>>;
  /** Call keys that must not run again, and why. */
  readonly blocked: Readonly<Record<string, string>>;
  readonly repairStreaks: Readonly<Record<string, number>>;
  readonly disabled: Readonly<Record<string, { readonly reason: string; readonly untilTurn: number | null }>>;
  readonly batch: Batch | null;
  readonly clarification: PendingClarification | null;
  /** Held calls waiting for a decision (in phase `tools` too, with policy `whileReviewing: 'run_others'`). */
  readonly reviews: readonly PendingReview[];
  /** Admitted calls of the batch that run together with the reviewed ones once all are decided. */
  readonly waitingRuns: readonly ToolCall[];
  readonly lastToolChoice: ToolChoice;
  /** Set once a cap, a loop or a human ends the run: the reason for the forced final turn. */
  readonly finalizing: string | null;
  readonly lastErrors: readonly ErrorSummary[];
  /** Ids handed out for clarifications. */
  readonly questions: number;
  /** What `once` calls' idempotency keys start with: the run's workflow id. */
  readonly runKey?: string;
  /** Idempotency keys issued to `once` calls, and those given back after unknown outcomes. */
  readonly onceLedger?: OnceLedger;
  /** Why the run is finalizing, as a stable code (absent in states from older runs: `limit_reached`). */
  readonly finalizingCode?: RunEndCode;
  /** Tokens and cost of the run's model calls so far, per model too (absent: none yet). */
  readonly usage?: RunUsage;
  /**
   * The model provider has refused or failed this turn since `since`, `attempts` times, `refusals` of them
   * by the provider itself rather than flow control's holds (absent: states from before, every wait a refusal;
   * absent or null: it has not).
   */
  readonly providerWait?: { readonly since: number; readonly attempts: number; readonly refusals?: number } | null;
  /** What people added to the budget (`extendBudgetUpdate`); absent: nothing. */
  readonly budgetExtra?: { readonly tokens: number; readonly costUsd: number };
  /** Budget requests asked so far (ids `b1`, `b2`…). */
  readonly budgetRequests?: number;
  /**
   * What a person allowed the run past its tenant's spent window (a budget request of the tenant's
   * window they extended), counted from the run's usage when they did; absent: nothing.
   */
  /**
   * The run's workspace snapshot (docs/workspaces.md): its digest in the run store, after the
   * last workspace call; absent before the first. Carried when the run continues as new.
   */
  readonly workspace?: string;
  /** Why the run wraps up: its tenant's budget window was near when it last called the model; absent: it was not. */
  readonly tenantNear?: string;
  readonly tenantAllowance?: {
    readonly tokens: number;
    readonly costUsd: number;
    readonly fromTokens: number;
    readonly fromCostUsd: number;
  };
}

/** A request to a person to extend the run's budget (policy `budget.onExhausted: 'ask'`). */
export interface BudgetRequest {
  /** `b1`, `b2`…: a decision names it. */
  readonly id: string;
  /** Which limit is used up. */
  readonly limit: 'tokens' | 'cost';
  /** The limits in force (the policy's plus extensions), and what was used when asked. */
  readonly maxTokens: number | null;
  readonly maxCostUsd: number | null;
  readonly usedTokens: number;
  readonly usedCostUsd: number;
  /**
   * Set when it is the run's tenant's window that is spent (the worker's per-tenant budgets), not the
   * run's own budget: an extension is then an allowance for this run past the window.
   */
  readonly tenantWindow?: TenantWindowSpent;
}

/** A person's answer to a budget request: add tokens and/or cost, or stop the run. */
export type { BudgetDecision } from '../shared/human-input/budget-decision.js';

/** How a finished run ended when it did not answer: its code, a sentence, and whether it fails the run. */
export interface RunEnd {
  readonly code: RunEndCode;
  readonly message: string;
  /** Fail the run (a non-retryable ApplicationFailure of type `code`) rather than complete it. */
  readonly fail: boolean;
}

/** What the workflow does next. */
export type PlanStep =
  | { readonly type: 'call_model'; readonly toolChoice: ToolChoice; readonly tools: readonly string[] }
  | { readonly type: 'execute_tools'; readonly calls: readonly ToolCall[] }
  | { readonly type: 'back_off'; readonly delayMs: number; readonly reason: string; readonly next: PlanStep }
  /** Ask each call's tool whether the effect under its idempotency key happened (a `reconcile` activity each). */
  | { readonly type: 'reconcile'; readonly calls: readonly ReconcileCall[] }
  | { readonly type: 'await_clarification'; readonly clarification: PendingClarification }
  | { readonly type: 'await_review'; readonly reviews: readonly PendingReview[] }
  /** The budget is used up: wait for a person to extend it (then take `next`) or stop the run. */
  | { readonly type: 'await_budget'; readonly request: BudgetRequest; readonly next: PlanStep }
  /** `end` is set when the run ended without its answer for a reason the planner names (model failures, budgets). */
  | { readonly type: 'finish'; readonly answer: string; readonly reason: string | null; readonly end?: RunEnd };

/** The model's reply as the transcript keeps it: its text and its calls, checked and numbered. */
export interface Reply {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** Every planner function returns the next state, the step, and what to add to the transcript. */
export interface Plan {
  readonly state: PlannerState;
  readonly step: PlanStep;
  /** The model's reply this plan reacts to, recorded first (a text answer or a batch of calls). */
  readonly reply?: Reply;
  /** Completed tool results to record, in call order (a batch is recorded whole). */
  readonly record: readonly ToolResult[];
  /** Notes for the model from Cairn (disabled tools, budgets, answers), recorded after `record`. */
  readonly notes: readonly string[];
  /** Messages people sent while the run worked (plan-messages.ts), recorded last, each a user message. */
  readonly said?: readonly string[];
}
