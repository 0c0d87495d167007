/**
 * What a guard in shadow mode would have refused (shadow-guard.ts records it; a ToolResult carries
 * it, shared/tools/tool-result.ts). Types only, so the result and the guard do not import each
 * other back. Workflow-safe.
 */
import type { ToolErrorCode } from '../failures/failure-taxonomy.js';

/** Which guard: the output schema (with JSON parsing of text), or the semantic check. */
export type GuardName = 'output' | 'check';

/** What a shadow guard would have refused, aggregated per rule and field within one result. */
export interface ShadowViolation {
  readonly guard: GuardName;
  /** The failure it would have been: `output_not_json`, `output_schema_violation`, `semantic_error`, `partial_data`, `internal_error`. */
  readonly code: ToolErrorCode;
  /** The rule that fired: a zod issue code (`invalid_value`, `invalid_type`…), `json_syntax`, the verdict's code, or `check_threw`. */
  readonly rule: string;
  /** Dotted field path, array indices as `*` (`orders.*.status`); empty for the whole output. */
  readonly path: string;
  /** How many times it fired in this result (e.g. once per order with a bad status). */
  readonly count: number;
  /** The first message, bounded. */
  readonly message: string;
}
