/**
 * How a run ended: answered, or ended with a stable code saying why it did not do its job. Read by
 * clients (`cairn run --wait` exits 1 on an ended run), the HTTP layer and the UI. A run whose model
 * cannot be used (misconfigured, or unavailable past the run's patience) fails as a Temporal failure
 * whose `ApplicationFailure.type` is the same code. Workflow-safe, plain data.
 */

/** Every code a run can end with, in the order docs/failure-taxonomy.md lists them. */
export const RUN_END_CODES = [
  /** The provider kept refusing (429/529/overloaded) or failing (5xx, network) past the policy's `modelPatienceMs`. */
  'model_unavailable',
  /** The model cannot be used as configured: unknown model (404), bad or missing credentials (401/403), unknown provider. */
  'model_misconfigured',
  /** The model kept giving replies Cairn cannot use (malformed, empty) and no final answer. */
  'model_unusable',
  /** The run's token or cost budget is used up (and no person extended it). */
  'budget_exhausted',
  /** A cap of the policy forced the final turn: turns, tool calls, failed batches, time. */
  'limit_reached',
  /** The same call failed the same way across turns (or repairs ran out) and the policy finalizes on loops. */
  'loop_detected',
  /** A question to a person went unanswered in time and the policy finalizes then. */
  'no_answer',
  /** The run was cancelled (a cancel Signal, `run.cancel`, a Temporal cancel). */
  'cancelled',
] as const;

/** A stable code for why a run ended without its answer. */
export type RunEndCode = (typeof RUN_END_CODES)[number];

/** The codes that fail the run (status Failed) unless the agent's policy says `onModelFailure: 'end'`. */
export const FAILING_END_CODES: readonly RunEndCode[] = ['model_unavailable', 'model_misconfigured'];

/** The run's outcome: the model answered, or the run ended for a reason named by `code`. */
export type RunOutcome =
  | { readonly status: 'answered' }
  | { readonly status: 'ended'; readonly code: RunEndCode; readonly message: string };

/** True when `value` is one of the run end codes (use on data read back from JSON). */
export function isRunEndCode(value: unknown): value is RunEndCode {
  return typeof value === 'string' && (RUN_END_CODES as readonly string[]).includes(value);
}
