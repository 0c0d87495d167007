/**
 * Queries that survive a run moving to another build. An auto-upgrade run moves by continuing as
 * new at a safe point (docs/upgrades.md, "Agent versions"), and its last workflow task reports it
 * auto-upgrade: a Query that was waiting on that run as it closed is then answered by the new
 * build's worker, which replays the old run on code it did not start on and fails it as
 * nondeterministic (TMPRL1100). Asked again, by workflow id, the Query reaches the chain's new run.
 * Node-only (client side).
 */
import type { WorkflowHandle } from '@temporalio/client';

/** How often a Query that met a moving run is asked again. */
const ASKED_AGAIN = 2;

/** `handle`, with its Queries asked again when they met a run as it moved (`handle` names no run id). */
export function queriesFollowMoves<T extends WorkflowHandle>(handle: T): T {
  const query = handle.query.bind(handle) as (...args: unknown[]) => Promise<unknown>;
  const following = async (...args: unknown[]) => {
    for (let asked = 0; ; asked++) {
      try {
        return await query(...args);
      } catch (error) {
        if (asked >= ASKED_AGAIN || !metMovingRun(error)) throw error;
      }
    }
  };
  return Object.assign(Object.create(handle) as T, { query: following });
}

/** True for the failure of a Query replayed on a build the run did not run on. */
export function metMovingRun(error: unknown): boolean {
  return error instanceof Error && /\[TMPRL1100\] Nondeterminism/.test(error.message);
}
