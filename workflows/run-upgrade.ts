/**
 * How an agent's `auto-upgrade` run moves to a newer build (docs/upgrades.md, "Agent versions"):
 * Temporal keeps it pinned, so it never replays on code it did not start on, and when a newer
 * build is current it continues as new onto that build at its next safe point
 * (planner/loop-control.ts: before it waits for a person). It learns of the build from the server
 * (Upgrade-on-Continue-as-New: `targetWorkerDeploymentVersionChanged`) where the server offers it,
 * else from the `upgrade` Signal that `cairn deploy set-current` sends. Workflow-safe, deterministic.
 */
import { makeContinueAsNewFunc, setHandler, workflowInfo } from '@temporalio/workflow';
import { getActivator } from '@temporalio/workflow/lib/global-attributes.js';
import type { Agent } from '../shared/agent/define-agent.js';
import type { RunUpgradeSignal } from '../planner/index.js';
import { upgradeSignal } from './contract/run-upgrade.js';
import type { AgentRunInput } from './contract/agent-run.js';

/** A build id as the server takes it; anything else in the Signal is ignored. */
const BUILD_ID = /^[\x21-\x7e]{1,255}$/;

export class RunUpgrade {
  #target: string | undefined;

  constructor(private readonly agent: Agent) {}

  install(): void {
    setHandler(upgradeSignal, (request) => {
      const buildId = (request as { buildId?: unknown } | undefined)?.buildId;
      if (typeof buildId !== 'string' || !BUILD_ID.test(buildId)) return;
      // Already there: a Signal sent twice, or to a run that moved meanwhile.
      if (buildId === workflowInfo().currentDeploymentVersion?.buildId) return;
      this.#target = buildId;
    });
  }

  /** The build the run moves to, when known (a Signal named it). */
  get target(): string | undefined {
    return this.#target;
  }

  /** What the planner needs to move the run at a safe point; undefined when it does not move. */
  signal(userTurn: boolean): RunUpgradeSignal | undefined {
    return this.moving() ? { at: this.agent.upgradeAt ?? 'person', userTurn } : undefined;
  }

  /** True when a newer build is current and this run moves to it (at its next safe point). */
  moving(): boolean {
    if (this.agent.versioning !== 'auto-upgrade' || !workflowInfo().currentDeploymentVersion?.deploymentName)
      return false;
    return this.#target !== undefined || workflowInfo().targetWorkerDeploymentVersionChanged === true;
  }

  /**
   * Continues as new onto the deployment's current build. Servers with Upgrade-on-Continue-as-New
   * read `initialVersioningBehavior`; older ones (1.29) continue a pinned run on its own build, so
   * this last workflow task also reports AUTO_UPGRADE: the run is auto-upgrade as it continues,
   * and its continuation starts on the current build (where it pins itself again).
   */
  continueAsNew(input: AgentRunInput): Promise<never> {
    getActivator().versioningBehavior = 'AUTO_UPGRADE';
    return makeContinueAsNewFunc<(input: AgentRunInput) => Promise<unknown>>({
      initialVersioningBehavior: 'AUTO_UPGRADE',
    })(input);
  }
}
