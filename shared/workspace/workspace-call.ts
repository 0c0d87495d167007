/**
 * What a workspace tool call carries into its activity (RunToolInput.workspace), and what it
 * hands back: the snapshot it starts from, or where the workspace starts when the run has none
 * yet; after an `ok` result, the run's next snapshot. Only digests enter history, never files.
 * Workflow-safe, deterministic.
 */
import type { WorkspaceLimits, WorkspaceSource } from './workspace-config.js';

export interface WorkspaceCallInput {
  /** The run's current snapshot; absent before its first workspace call. */
  readonly digest?: string;
  /** Where the workspace starts when `digest` is absent. */
  readonly from: WorkspaceSource;
  readonly limits: Required<WorkspaceLimits>;
  readonly network: boolean;
}

/** What a reviewer's preview of a workspace write needs: the file, its new content, and the snapshot to diff against. */
export interface WorkspacePreviewInput {
  readonly path: string;
  readonly content: string;
  readonly workspace: WorkspaceCallInput;
}
