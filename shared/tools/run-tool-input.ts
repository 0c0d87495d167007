/**
 * The tool activity's input. Workflows build it from a checked ToolCall; the worker's `runTool`
 * reads it. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import type { ToolResult } from './tool-result.js';
import type { WorkspaceCallInput } from '../workspace/workspace-call.js';

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
  /** A workspace tool's call: the snapshot it starts from (shared/workspace/workspace-call.ts). */
  readonly workspace?: WorkspaceCallInput;
}

/**
 * What the tool activity returns: the call's result and, for a workspace call, the run's snapshot
 * after it (the new one when it ended `ok`, else the one it started from). The workflow takes
 * `workspace` off before the result goes anywhere else.
 */
export type RunToolResult = ToolResult & { readonly workspace?: string };
