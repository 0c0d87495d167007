/**
 * Tool calls as the workflow sees them once a model response has been parsed.
 * Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';

/** A tool call with a deterministic id, ready for validation and dispatch. */
export interface ToolCall {
  /** Cairn's deterministic id (`<turn>.<index>`), unique within a run; the tool's idempotency key stem. */
  readonly toolCallId: string;
  /** The id the model provider gave the call, echoed back in the provider's tool-result form. */
  readonly providerCallId?: string;
  readonly name: string;
  /** Parsed arguments; for malformed JSON, the raw text. */
  readonly args: JsonValue;
}
