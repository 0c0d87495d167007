/**
 * What the planner does for each retry reason: one rule per reason (docs/failure-taxonomy.md).
 * What failed lives in shared/failures/failure-taxonomy.ts; what happens next lives here.
 * Workflow-safe, deterministic.
 */
import type { RetryReason } from '../shared/failures/failure-taxonomy.js';

export const PlannerAction = {
  /** The model retries with the structured error in front of it, restricted to the tool if hinted. */
  Repair: 'repair',
  /** A durable timer, then the same call again without a model turn; bounded by the budget. */
  BackOff: 'back_off',
  /** The tool leaves the model's tool list; the model is told. */
  DisableTool: 'disable_tool',
  /** This exact call never runs again; the model is told the tool returned broken output. */
  BlockCall: 'block_call',
  /** Keep what came; the hint (e.g. the next page) goes to the model. */
  Continue: 'continue',
  /** The failure goes to the model as it is. */
  Inform: 'inform',
  /** Only a person can say what happened: the run asks (policy `onOutcomeUnknown`), else it informs. */
  AskHuman: 'ask_human',
} as const;
export type PlannerAction = (typeof PlannerAction)[keyof typeof PlannerAction];

export const HINT_ACTIONS: Readonly<Record<RetryReason, PlannerAction>> = {
  invalid_arguments: 'repair',
  missing_fields: 'repair',
  semantic_error: 'repair',
  validation_failed: 'repair',
  timeout: 'back_off',
  rate_limited: 'back_off',
  tool_unavailable: 'disable_tool',
  malformed_response: 'block_call',
  partial_data: 'continue',
  internal_error: 'inform',
  rejected: 'inform',
  budget_exceeded: 'inform',
  cancelled: 'inform',
  // The model is told not to retry blindly; asking a human is the planner's next step.
  outcome_unknown: 'ask_human',
};
