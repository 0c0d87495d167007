/**
 * gateBuild: the gate before a build of a Worker Deployment is promoted (`cairn deploy gate`,
 * `set-current`, `ramp`; docs/upgrades.md). The open runs that would move to the build
 * (auto-upgrade runs of the deployment, unversioned runs on its task queue) are replayed against
 * this checkout's workflow code; then, with an eval module, the evaluation it defines runs over its
 * own cases plus those runs' histories so far (runtime/eval/open-case.ts), and its thresholds
 * (deploy-gate-thresholds.ts) decide. Over one, nothing is promoted; the result names the runs and
 * the decisions that changed. A roll back is the same gate, run from the previous build's checkout.
 * Node-only.
 */
import type { Client } from '@temporalio/client';
import { movingRunsQuery, setCurrentBuild, setRampingBuild } from './deployments.js';
import { pinnedElsewhereQuery, upgradeRuns, type UpgradeRunsResult } from './run-upgrades.js';
import { evalGates, gateVerdict, type GateThresholds, type GateVerdict } from './deploy-gate-thresholds.js';
import type { EvalReport } from './eval/eval-results.js';
import { runEval, type RunEvalOptions } from './eval/run-eval.js';
import {
  replayHistories,
  serverHistories,
  type ReplayOptions,
  type ReplayOutcome,
  type ReplayStatus,
} from './replay.js';

/** The evaluation of a gate: an eval module (its cases, plus the runs that would move) and thresholds. */
export interface GateEvaluation
  extends Omit<RunEvalOptions, 'client' | 'cases' | 'openRuns' | 'gates' | 'allowErrors'> {
  readonly thresholds?: GateThresholds;
}

export interface GateBuildOptions {
  /** Reads the runs, starts the evaluation's runs, promotes; its data converter must read the runs' payloads. */
  readonly client: Client;
  readonly deploymentName: string;
  readonly buildId: string;
  /** The task queue whose unversioned runs would move too. */
  readonly taskQueue: string;
  /** The runs that would move (default: movingRunsQuery of the deployment and task queue). */
  readonly query?: string;
  /** At most this many of them. */
  readonly limit?: number;
  /** Replays them against this workflow code first (this checkout's build); false skips the replay. */
  readonly replay: ReplayOptions | false;
  /** Called with each replayed run. */
  readonly onReplayed?: (outcome: ReplayOutcome) => void;
  /** Then evaluates the build's change on them, and on the eval's own cases. */
  readonly evaluation?: GateEvaluation;
  /**
   * Made current, the build is announced to the agents' auto-upgrade runs pinned to other builds
   * (run-upgrades.ts): these agents, when known (default: the runs' own summaries say).
   */
  readonly upgradeAgents?: readonly string[];
  /** What to promote when the gate passes; none: only the gate (`cairn deploy gate`). */
  readonly promote?: { readonly to: 'current' } | { readonly to: 'ramping'; readonly percentage: number };
}

export interface GateEvaluationResult extends GateVerdict {
  readonly module: string;
  readonly agent: string;
  readonly candidate: string;
  /** The evaluation's whole report. */
  readonly report: EvalReport;
}

export interface BuildGateResult {
  readonly deploymentName: string;
  readonly buildId: string;
  /** The visibility query of the runs that would move. */
  readonly query: string;
  /** The gate passed: every run replays, and no threshold was crossed. */
  readonly passed: boolean;
  /** Replayed runs by outcome; null when not replayed. */
  readonly replayed: Readonly<Record<ReplayStatus, number>> | null;
  /** The runs that did not replay. */
  readonly notReplayed: readonly ReplayOutcome[];
  /** Null without an evaluation, or when the replay already refused the build. */
  readonly evaluation: GateEvaluationResult | null;
  /** What was promoted: nothing unless the gate passed and `promote` was asked. */
  readonly promoted: 'current' | 'ramping' | false;
  /** The build that was current, when the build was made current. */
  readonly previous?: string;
  /** The auto-upgrade runs told of the build made current: each moves to it at its next safe point. */
  readonly upgraded?: UpgradeRunsResult;
}

/** Runs the gate, and promotes the build when it passes and `promote` says so. */
export async function gateBuild(options: GateBuildOptions): Promise<BuildGateResult> {
  const { client, deploymentName, buildId } = options;
  const query = options.query ?? movingRunsQuery({ deploymentName, taskQueue: options.taskQueue });
  const limit = options.limit !== undefined ? { limit: options.limit } : {};
  let replayed: Record<ReplayStatus, number> | null = null;
  const notReplayed: ReplayOutcome[] = [];
  if (options.replay) {
    replayed = { ok: 0, nondeterministic: 0, failed: 0, unknown_agent: 0 };
    for await (const outcome of replayHistories(serverHistories(client, { query, ...limit }), options.replay)) {
      replayed[outcome.status]++;
      if (outcome.status !== 'ok') notReplayed.push(outcome);
      options.onReplayed?.(outcome);
    }
  }
  let evaluation: GateEvaluationResult | null = null;
  if (options.evaluation && notReplayed.length === 0) {
    const { thresholds = {}, ...setup } = options.evaluation;
    const report = await runEval({
      ...setup,
      client,
      // The agent's auto-upgrade runs on other builds move too (by continue-as-new, so not replayed above).
      openRuns: { query, upgrading: pinnedElsewhereQuery({ deploymentName, buildId }), ...limit },
      gates: evalGates(thresholds),
      // A case that cannot be evaluated is a crossed threshold (caseErrors), naming the run, not a stop.
      allowErrors: true,
    });
    evaluation = {
      module: options.evaluation.module,
      agent: report.agent,
      candidate: report.candidate,
      ...gateVerdict(report, thresholds),
      report,
    };
  }
  const passed = notReplayed.length === 0 && (evaluation?.passed ?? true);
  const result = { deploymentName, buildId, query, passed, replayed, notReplayed, evaluation };
  if (!passed || !options.promote) return { ...result, promoted: false };
  if (options.promote.to === 'ramping') {
    await setRampingBuild(client, { deploymentName, buildId, percentage: options.promote.percentage });
    return { ...result, promoted: 'ramping' };
  }
  const { previous } = await setCurrentBuild(client, { deploymentName, buildId });
  const upgraded = await upgradeRuns(client, {
    deploymentName,
    buildId,
    ...(options.upgradeAgents && { agents: options.upgradeAgents }),
  });
  return { ...result, promoted: 'current', ...(previous !== undefined && { previous }), upgraded };
}
