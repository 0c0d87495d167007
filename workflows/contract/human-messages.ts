/**
 * What people send a run: an answer to its question, a review decision, a budget decision, a
 * message while it works, pause, resume and cancel. Updates are validated before anything enters
 * history (a refusal is a `HumanInputError` with a code); the Signal twins serve clients that can
 * only signal, and invalid ones are ignored. Part of the run's contract (workflows/contract/index.ts):
 * workflow-safe, imported by the workflow (workflows/run-inbox.ts, budget-requests.ts,
 * user-messages.ts install the handlers) and by clients.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { JsonValue } from '../../shared/json/json.js';
import type { ReviewDecisionInput } from '../../shared/human-input/review-decision.js';
import type { BudgetDecision } from '../../planner/index.js';

export interface ClarificationAnswer {
  /** The pending clarification's id (see `stateQuery`). */
  readonly id: string;
  /** Text, or an object naming the missing fields. */
  readonly answer: JsonValue;
}

export interface ReviewInput {
  readonly toolCallId: string;
  /** The hash of the arguments reviewed; a decision about other arguments is stale and refused. */
  readonly argsHash: string;
  readonly decision: ReviewDecisionInput;
}

/** A person's decision on the pending budget request. */
export interface BudgetExtensionInput {
  /** The pending request's id (`state.budget.pending.id`, e.g. `b1`). */
  readonly id: string;
  readonly decision: BudgetDecision;
}

export interface UserMessageInput {
  readonly text: string;
}

/** A message the run took: its id, and whether it waits for the next model turn or cuts the current one short. */
export interface SentMessage {
  readonly id: string;
  readonly delivery: 'queued' | 'interrupting';
}

/** Answer a pending clarification; the validator refuses a wrong id or answer without writing history. */
export const answerClarificationUpdate = defineUpdate<void, [ClarificationAnswer]>('answerClarification');
/** The same answer for clients that can only signal (the Temporal UI, scripts); invalid ones are ignored. */
export const answerClarificationSignal = defineSignal<[ClarificationAnswer]>('answerClarificationSignal');
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
/** Send the run a message; refused (no history written) with a `HumanInputError`, `RunBusy`, `MessageQueueFull` or `RunFinishing`. */
export const sendMessageUpdate = defineUpdate<SentMessage, [UserMessageInput]>('sendMessage');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** End the run gracefully: a final model turn with no tools. */
export const cancelSignal = defineSignal<[string?]>('cancel');
