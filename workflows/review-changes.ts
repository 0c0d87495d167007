/**
 * What a held workspace call would change, shown to its reviewer (docs/workspaces.md, "Reviews"):
 * a patch is its own diff; a write is diffed against the run's snapshot by an activity on a
 * worker. Kept beside the planner's reviews (by call and argument hash) and merged into the run's
 * state, so the inbox, AG-UI and the CLI read it with the review. A preview that fails leaves the
 * review as it was: the reviewer still sees the arguments. Workflow code (sandbox).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { AnyTool } from '../shared/tools/define-tool.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import type { CheckedWorkspaceConfig } from '../shared/workspace/workspace-config.js';
import type { WorkspacePreviewInput } from '../shared/workspace/workspace-call.js';
import { isJsonObject } from '../shared/json/json.js';

/** The longest change a review carries (it goes into the run's state and the inbox memo). */
export const MAX_CHANGE_CHARS = 16_000;

const { previewWorkspaceChange } = proxyActivities<{
  previewWorkspaceChange(input: WorkspacePreviewInput): Promise<string | null>;
}>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 2 } });

const cut = (text: string) =>
  text.length <= MAX_CHANGE_CHARS ? text : `${text.slice(0, MAX_CHANGE_CHARS - 20)}\n… (cut)`;

export class ReviewChanges {
  readonly #changes = new Map<string, string>();

  /** Finds what each pending review of a workspace write or patch would change; true when one was added. */
  async prepare(
    reviews: readonly PendingReview[],
    tools: ReadonlyMap<string, AnyTool>,
    workspace: CheckedWorkspaceConfig | undefined,
    digest: string | undefined,
  ): Promise<boolean> {
    let added = false;
    for (const review of reviews) {
      const key = `${review.toolCallId}:${review.argsHash}`;
      const args = review.args;
      if (this.#changes.has(key) || !workspace || tools.get(review.name)?.workspace !== true || !isJsonObject(args))
        continue;
      let change: string | null = null;
      if (review.name === 'apply_patch' && typeof args.patch === 'string') change = args.patch;
      else if (review.name === 'write_file' && typeof args.path === 'string' && typeof args.content === 'string')
        change = await previewWorkspaceChange({
          path: args.path,
          content: args.content,
          workspace: { ...workspace, ...(digest !== undefined && { digest }) },
        }).catch(() => null);
      if (change === null) continue;
      this.#changes.set(key, cut(change));
      added = true;
    }
    return added;
  }

  /** The reviews with what each would change, where known. */
  with<T extends PendingReview>(reviews: readonly T[]): T[] {
    if (this.#changes.size === 0) return [...reviews];
    return reviews.map((review) => {
      const change = this.#changes.get(`${review.toolCallId}:${review.argsHash}`);
      return change === undefined ? review : { ...review, change };
    });
  }
}
