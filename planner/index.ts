/** The planner: pure decisions over plain data. Workflow-safe, deterministic; no Temporal, no I/O. */
export * from './plan.js';
export * from './policy.js';
export * from './hint-actions.js';
export * from './backoff.js';
export * from './response-validator.js';
export { planStart, initialState, type PlanStartInput } from './plan-start.js';
export { planModelOutcome } from './plan-model-outcome.js';
export { planToolCalls, refusal } from './plan-tool-calls.js';
export { planResume, completeBatch } from './plan-resume.js';
export { planClarificationAnswer, planClarificationTimeout, planReviewed, planCancel } from './plan-human.js';
export { enabledTools } from './plan-common.js';
