/**
 * The tool activity's input. Workflows build it from a checked ToolCall; the worker's `runTool`
 * reads it. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';

export interface RunToolInput {
  /** The tool's name, as in its spec. */
  readonly name: string;
  /** Cairn's deterministic call id; with the workflow id it forms the idempotency key. */
  readonly toolCallId: string;
  /** Arguments already validated by the workflow (`checkToolCall`'s `call.args`). */
  readonly args: JsonValue;
  /**
   * The key the tool dedupes its side effects with, chosen by the workflow (for `once` tools:
   * `issueOnceKeys` in shared/identity/once-key.ts). Absent in runs scheduled before this field existed:
   * the activity then uses `<workflowId>/<toolCallId>`, as it always did.
   */
  readonly idempotencyKey?: string;
}
