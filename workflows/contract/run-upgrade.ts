/**
 * The `upgrade` Signal: a newer build of the run's agent is current (`cairn deploy set-current`
 * sends it to the auto-upgrade runs it moves). The run continues as new onto that build at its next
 * safe point (docs/upgrades.md, "Agent versions"); a run that does not upgrade ignores it. Part of
 * the run's contract (workflows/contract/index.ts): any Temporal client may send it.
 */
import { defineSignal } from '@temporalio/workflow';

export interface RunUpgradeRequest {
  /** The build now current in the run's deployment. */
  readonly buildId: string;
}

export const upgradeSignal = defineSignal<[RunUpgradeRequest]>('upgrade');
