/**
 * RetryHint: what the planner and the model need in order to act on a failure, as plain data.
 * Workflow-safe, deterministic.
 */
import type { JsonObject, JsonValue } from '../json/json.js';
import type { RetryReason } from './failure-taxonomy.js';

/** One problem with one field of a tool call's arguments. */
export interface FieldIssue {
  /** Dotted path to the field, e.g. `items.0.sku`; empty for the whole input. */
  readonly path: string;
  readonly message: string;
  /** What the schema expected, e.g. `number` or `one of placed, shipped, delivered, cancelled`. */
  readonly expected?: string;
  /** What was received, e.g. `string`, or the offending value. */
  readonly received?: string;
  /** For enums: the allowed values. */
  readonly allowed?: readonly JsonValue[];
}

export interface RetryHint {
  readonly reason: RetryReason;
  /** The tool the hint is about. */
  readonly tool: string;
  /** When true, the next model call should be restricted to `tool`. */
  readonly restrictToTool?: boolean;
  readonly missingFields?: readonly string[];
  /**
   * `missingFields` in a person's words, in the same order (shared/guards/field-labels.ts), for a
   * question to the end user. Not shown to the model.
   */
  readonly missingFieldLabels?: readonly string[];
  readonly issues?: readonly FieldIssue[];
  /** A valid input to imitate, from the tool's examples. */
  readonly exampleInput?: JsonObject;
  /** The input that failed. */
  readonly priorInput?: JsonValue;
  /** A question for the human, when only the human can supply what is missing. */
  readonly clarifyingQuestion?: string;
  /** Plain-language advice for the model. */
  readonly message?: string;
  /** Wait at least this long before the same call again. */
  readonly retryAfterMs?: number;
  /** Partial data: the input that fetches the rest, e.g. `{ page: 2 }` merged into the prior input. */
  readonly nextInput?: JsonObject;
  /** Tools the model may call instead (e.g. for an unknown tool). */
  readonly availableTools?: readonly string[];
}
