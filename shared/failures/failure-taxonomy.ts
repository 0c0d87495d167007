/**
 * The one failure taxonomy: every way a tool call can go wrong, as a stable snake_case `code`,
 * the coarse `kind` it belongs to, and the single `RetryHint.reason` it maps to. What happens next
 * is the planner's business (`planner/hint-actions.ts`), not this table's.
 * docs/failure-taxonomy.md renders this table with the planner's action beside each row.
 * Workflow-safe, deterministic.
 */

/** Coarse classes of failure (seed 002's error classes, plus operational ones). */
export const FailureKind = {
  /** The model's call was wrong: bad or missing arguments, unknown tool, unparsable JSON. */
  InvalidInput: 'invalid_input',
  /** The tool's output had the wrong shape: not JSON, or outside its output schema. */
  SchemaMismatch: 'schema_mismatch',
  /** Some data came back, not all of it: more pages, truncated, a rate-limited partial. */
  PartialData: 'partial_data',
  /** The shape is right, the meaning is wrong: e.g. an empty first page that says `has_more`. */
  Semantic: 'semantic',
  /** A validator post-hook judged the result and refused it. */
  Validation: 'validation',
  /** Worth trying again later, unchanged: timeouts and rate limits. */
  Transient: 'transient',
  /** The tool cannot be reached at all. */
  Unavailable: 'unavailable',
  /** A bug or unexpected crash inside the tool. */
  Internal: 'internal',
  /** Cairn or a human decided the call must not run. */
  Policy: 'policy',
  /** Nobody knows whether the call took effect: a `once` call whose attempt ended without a result. */
  Indeterminate: 'indeterminate',
} as const;
export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];

/** Why a call should (or should not) be retried, as the model and planner see it. */
export const RetryReason = {
  InvalidArguments: 'invalid_arguments',
  MissingFields: 'missing_fields',
  MalformedResponse: 'malformed_response',
  PartialData: 'partial_data',
  SemanticError: 'semantic_error',
  ValidationFailed: 'validation_failed',
  Timeout: 'timeout',
  RateLimited: 'rate_limited',
  ToolUnavailable: 'tool_unavailable',
  InternalError: 'internal_error',
  Rejected: 'rejected',
  BudgetExceeded: 'budget_exceeded',
  Cancelled: 'cancelled',
  OutcomeUnknown: 'outcome_unknown',
} as const;
export type RetryReason = (typeof RetryReason)[keyof typeof RetryReason];

interface TaxonomyRow {
  readonly kind: FailureKind;
  readonly reason: RetryReason;
  /** One line for docs and for the model: when this code is used. */
  readonly meaning: string;
}

/** Every failure code Cairn produces, with its kind and its one retry reason. */
export const FAILURES = {
  invalid_arguments: {
    kind: 'invalid_input',
    reason: 'invalid_arguments',
    meaning: 'The arguments failed the tool input schema (wrong type, unknown enum value, bad format).',
  },
  missing_fields: {
    kind: 'invalid_input',
    reason: 'missing_fields',
    meaning: 'Required arguments were absent.',
  },
  unknown_tool: {
    kind: 'invalid_input',
    reason: 'invalid_arguments',
    meaning: 'The model called a tool that does not exist or is disabled.',
  },
  malformed_arguments: {
    kind: 'invalid_input',
    reason: 'invalid_arguments',
    meaning: 'The model sent tool arguments that are not valid JSON.',
  },
  output_not_json: {
    kind: 'schema_mismatch',
    reason: 'malformed_response',
    meaning: 'The tool returned text that is not valid JSON (e.g. truncated).',
  },
  output_schema_violation: {
    kind: 'schema_mismatch',
    reason: 'malformed_response',
    meaning: 'The tool returned JSON that violates its output schema.',
  },
  malformed_model_output: {
    kind: 'schema_mismatch',
    reason: 'malformed_response',
    meaning: 'The model client returned a reply Cairn cannot use: the wrong shape, or over the size limits.',
  },
  partial_data: {
    kind: 'partial_data',
    reason: 'partial_data',
    meaning: 'The tool returned part of the data (more pages, truncated, rate-limited partial).',
  },
  semantic_error: {
    kind: 'semantic',
    reason: 'semantic_error',
    meaning: 'The output has the right shape but the wrong meaning.',
  },
  validator_failed: {
    kind: 'validation',
    reason: 'validation_failed',
    meaning: 'A validator post-hook refused the result, with feedback.',
  },
  post_hook_error: {
    kind: 'internal',
    reason: 'internal_error',
    meaning: 'A validator post-hook threw instead of returning a Result.',
  },
  timeout: {
    kind: 'transient',
    reason: 'timeout',
    meaning: 'The tool did not answer in time.',
  },
  rate_limited: {
    kind: 'transient',
    reason: 'rate_limited',
    meaning: 'The tool or its API rate-limited the call, possibly with a retry-after.',
  },
  tool_unavailable: {
    kind: 'unavailable',
    reason: 'tool_unavailable',
    meaning: 'The tool or its backend cannot be reached.',
  },
  internal_error: {
    kind: 'internal',
    reason: 'internal_error',
    meaning: 'The tool threw an unexpected error (a plain throw, after Temporal retried it).',
  },
  outcome_unknown: {
    kind: 'indeterminate',
    reason: 'outcome_unknown',
    meaning:
      'A `once` call ended without a known result (the worker died, it timed out): it may or may not have taken effect.',
  },
  rejected_by_human: {
    kind: 'policy',
    reason: 'rejected',
    meaning: 'A human reviewer rejected the call.',
  },
  retry_budget_exceeded: {
    kind: 'policy',
    reason: 'budget_exceeded',
    meaning: 'The same call was tried too often this turn; it was not run.',
  },
  loop_detected: {
    kind: 'policy',
    reason: 'budget_exceeded',
    meaning: 'The same call failed the same way across turns, or returned broken output before; it was not run again.',
  },
  tool_call_cap_exceeded: {
    kind: 'policy',
    reason: 'budget_exceeded',
    meaning: 'The run has no tool calls left under its cap; the batch was refused whole.',
  },
  too_many_calls: {
    kind: 'policy',
    reason: 'budget_exceeded',
    meaning: 'The model made more calls in one turn than a turn may run (maxCallsPerTurn); these were not run.',
  },
  cancelled: {
    kind: 'policy',
    reason: 'cancelled',
    meaning: 'The run or the call was cancelled before the call ran or finished; the tool is not at fault.',
  },
} as const satisfies Record<string, TaxonomyRow>;

/** A stable failure code. */
export type ToolErrorCode = keyof typeof FAILURES;

/** All codes, in table order. */
export const TOOL_ERROR_CODES = Object.keys(FAILURES) as ToolErrorCode[];

/** True when `code` is one of Cairn's failure codes (use on data read back from JSON). */
export function isToolErrorCode(code: unknown): code is ToolErrorCode {
  return typeof code === 'string' && Object.hasOwn(FAILURES, code);
}
