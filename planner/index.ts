/** The planner: pure decisions over plain data. Workflow-safe, deterministic; no Temporal, no I/O. */
export * from './plan.js';
export * from './policy.js';
export * from './hint-actions.js';
export * from './backoff.js';
export * from './response-validator.js';
export { advance, type AdvanceContext, type Happening } from './advance.js';
export {
  handOverDue,
  loopControl,
  upgradeDue,
  type LoopControl,
  type LoopSignals,
  type RunUpgradeSignal,
} from './loop-control.js';
export { toolboxOf, checkedCall, type CallFacts, type Toolbox } from './toolbox.js';
export { transcriptEntries } from './transcript-entries.js';
export { fitContext, messageSize, LEFT_OUT_NOTE, type Fitted } from './context-window.js';
export { planStart, initialState, type PlanStartInput } from './plan-start.js';
export { planModelOutcome } from './plan-model-outcome.js';
export { planToolCalls } from './plan-tool-calls.js';
export { planResume, planBackoffElapsed } from './plan-resume.js';
export { planReconcile, planReconciled, MAX_RECONCILES } from './plan-reconcile.js';
export { completeBatch, MAX_LAST_ERRORS } from './complete-batch.js';
export {
  planClarificationAnswer,
  planClarificationTimeout,
  planReviewed,
  checkReview,
  planCancel,
  planResumed,
  clarificationTimeLeft,
} from './plan-human.js';
export { enabledTools, refusal } from './plan-common.js';
export {
  deliverMessages,
  messageDecision,
  workingOn,
  type MessageDecision,
  type UserMessage,
  type Working,
} from './plan-messages.js';
export {
  budgetExhausted,
  budgetLimits,
  budgetNear,
  checkBudget,
  planBudgetDecision,
  tenantAllowanceLeft,
  tenantWindowSpent,
} from './plan-budget.js';
export { providerWaitDelay } from './provider-wait.js';
export { runOutcome } from './run-outcome.js';
export { STEP_ACTIONS, modelTurnAction, type StepAction } from './step-action.js';
export type { ModelTurnFacts } from './plan-model-outcome.js';
