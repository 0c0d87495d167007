/**
 * Telling auto-upgrade runs that a newer build is current (docs/upgrades.md, "Agent versions").
 * An agent's `auto-upgrade` run is pinned in Temporal until it moves itself at a safe point
 * (workflows/run-upgrade.ts); a server without Upgrade-on-Continue-as-New does not tell it, so
 * `cairn deploy set-current` sends each such run the `upgrade` Signal. A run waiting on a person
 * moves at once, still waiting; a working one at its next safe point. Node-only.
 */
import type { Client } from '@temporalio/client';
import { AGENT_MEMO, upgradeSignal } from '../workflows/contract/index.js';
import { runSummaryOf } from '../workflows/contract/run-summary-memo.js';
import { versionKey } from './deployments.js';

/** At most this many Signals in flight: a fleet of thousands is told without a burst. */
const SIGNALS_AT_ONCE = 16;

export interface UpgradeRunsOptions {
  readonly deploymentName: string;
  /** The build now current. */
  readonly buildId: string;
  /**
   * The agents whose runs move (their `versioning` is `auto-upgrade`), when known; else the runs
   * that say so in their summary (`cairnRun.upgrades`), and those that have not published one yet
   * (a run whose agent does not upgrade ignores the Signal).
   */
  readonly agents?: readonly string[];
  readonly workflowType?: string;
}

export interface UpgradeRunsResult {
  /** The runs told, by workflow id. */
  readonly signalled: readonly string[];
  /** Runs that could not be told (closed meanwhile, or refused), with why. */
  readonly failed: readonly { readonly workflowId: string; readonly error: string }[];
}

/** The visibility query for the open runs pinned to another build of the deployment. */
export function pinnedElsewhereQuery(options: Omit<UpgradeRunsOptions, 'agents'>): string {
  const literal = (text: string) => JSON.stringify(text);
  return (
    `WorkflowType = ${literal(options.workflowType ?? 'agentRun')} AND ExecutionStatus = "Running"` +
    ` AND TemporalWorkerDeployment = ${literal(options.deploymentName)}` +
    ` AND TemporalWorkflowVersioningBehavior = "Pinned"` +
    ` AND TemporalWorkerDeploymentVersion != ${literal(versionKey(options.deploymentName, options.buildId))}`
  );
}

/** Sends `upgrade` to every open run of `agents` pinned to another build of the deployment. */
export async function upgradeRuns(client: Client, options: UpgradeRunsOptions): Promise<UpgradeRunsResult> {
  const agents = options.agents && new Set(options.agents);
  const moving: string[] = [];
  for await (const run of client.workflow.list({ query: pinnedElsewhereQuery(options) })) {
    // The agent is in the start memo of every run CairnClient or a parent started.
    const agent = run.memo?.[AGENT_MEMO];
    if (typeof agent !== 'string') continue;
    const summary = runSummaryOf(run.memo);
    const unknown = summary === undefined || summary.phase === 'started';
    if (agents ? agents.has(agent) : summary?.upgrades === true || unknown) moving.push(run.workflowId);
  }
  const signalled: string[] = [];
  const failed: { workflowId: string; error: string }[] = [];
  for (let i = 0; i < moving.length; i += SIGNALS_AT_ONCE)
    await Promise.all(
      moving.slice(i, i + SIGNALS_AT_ONCE).map((workflowId) =>
        client.workflow
          .getHandle(workflowId)
          .signal(upgradeSignal, { buildId: options.buildId })
          .then(
            () => void signalled.push(workflowId),
            (error: unknown) =>
              void failed.push({ workflowId, error: error instanceof Error ? error.message : String(error) }),
          ),
      ),
    );
  return { signalled, failed };
}
