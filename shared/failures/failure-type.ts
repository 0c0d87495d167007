/**
 * The one mapping between Cairn failure codes and Temporal's `ApplicationFailure.type`. Retry
 * policies decide by `type` (`nonRetryableErrorTypes`), and `fromError` reads the code back from
 * it, so both directions live here. The type is the code itself (`internal_error`): snake_case
 * codes cannot collide with error class names such as `TypeError`.
 * Workflow-safe (no Temporal import), deterministic.
 */
import { TOOL_ERROR_CODES, isToolErrorCode, type ToolErrorCode } from './failure-taxonomy.js';

/** The `ApplicationFailure.type` for a failure code. */
export function failureType(code: ToolErrorCode): string {
  return code;
}

/** The failure code an `ApplicationFailure.type` stands for; undefined when it is not Cairn's. */
export function codeOfFailureType(type: unknown): ToolErrorCode | undefined {
  return isToolErrorCode(type) ? type : undefined;
}

/** Codes worth a Temporal retry of the identical call: the cause may be gone next time. */
export const RETRYABLE_CODES: readonly ToolErrorCode[] = [
  'internal_error',
  'timeout',
  'rate_limited',
  'tool_unavailable',
];

/**
 * Every other code: what was sent or returned decides it, so an identical retry fails
 * identically. The tool activity marks a failure of one of these types non-retryable.
 */
export const NON_RETRYABLE_FAILURE_TYPES: readonly string[] = TOOL_ERROR_CODES.filter(
  (code) => !RETRYABLE_CODES.includes(code),
).map(failureType);
