/**
 * Replaying histories against a build, as `cairn replay` and the gate of `cairn deploy` do: the
 * workflow code (a project's agents, or a workflows file), the data converter its workers use, a
 * quiet replay runtime, and one line per history. Loaded only when a command replays. Node-only.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import type { WorkerInterceptors } from '@temporalio/worker';
import { projectWorkflows, replayHistories, type ReplaySource, type ReplayStatus } from '../runtime/replay.js';
import { findConfig, ProjectConfigError } from '../runtime/project-config.js';
import { WorkflowBundleError } from '../runtime/workflow-bundle.js';
import { dataConverterFromEnvironment } from '../runtime/payload-codec.js';
import { CliError } from './errors.js';
import type { Io } from './io.js';
import { installRuntime } from './worker-process.js';

/** The workflow code histories replay against, and how its workers decode payloads. */
export interface ReplayCode {
  readonly workflowsPath: string;
  readonly worker: { readonly dataConverter?: DataConverter; readonly interceptors?: WorkerInterceptors };
  /** The agents it serves, when it is a project's: another agent's run is `unknown_agent`. */
  readonly agents?: readonly string[];
  /** What it is, for the summary line: `the agents of cairn.config.ts (support)`. */
  readonly against: string;
}

/** The code of `--workflows <file>`, else of the project (`--config`, or the nearest cairn.config.ts). */
export async function replayCode(flags: {
  readonly config?: string;
  readonly workflows?: string;
}): Promise<ReplayCode> {
  let workflowsPath: string;
  let worker: ReplayCode['worker'] = {};
  let against: string;
  let agents: readonly string[] | undefined;
  if (flags.workflows !== undefined) {
    workflowsPath = resolve(flags.workflows);
    if (!existsSync(workflowsPath)) throw new CliError(`${flags.workflows} does not exist.`);
    against = relative(process.cwd(), workflowsPath) || workflowsPath;
  } else {
    const configFile = flags.config ?? findConfig();
    if (!configFile)
      throw new CliError(
        `No cairn.config.ts in ${process.cwd()} or any folder above it: pass --config <file> for your project, or --workflows <file> for a workflows file of your own.`,
      );
    const project = await projectWorkflows(configFile).catch((error: unknown) =>
      Promise.reject(error instanceof ProjectConfigError ? new CliError(error.message) : error),
    );
    workflowsPath = project.workflowsPath;
    worker = {
      ...(project.worker?.dataConverter && { dataConverter: project.worker.dataConverter }),
      ...(project.worker?.interceptors && { interceptors: project.worker.interceptors }),
    };
    agents = project.servedAgents;
    against = `the agents of ${relative(process.cwd(), project.configFile) || project.configFile} (${project.agents.join(', ')})`;
  }
  if (!worker.dataConverter) {
    try {
      const dataConverter = dataConverterFromEnvironment();
      if (dataConverter) worker = { ...worker, dataConverter };
    } catch (error) {
      throw new CliError(`Cannot read the payload encryption keys: ${(error as Error).message}`);
    }
  }
  return { workflowsPath, worker, ...(agents && { agents }), against };
}

/**
 * The replay worker logs every divergence it finds (core warnings, activation errors): the outcome
 * lines say it once. CAIRN_LOG_LEVEL shows those logs, as for a worker.
 */
export async function installReplayRuntime(): Promise<void> {
  if (process.env.CAIRN_LOG_LEVEL) return installRuntime();
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  Runtime.install({
    logger: new DefaultLogger('ERROR', () => {}),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
}

export type ReplayCounts = Record<ReplayStatus, number>;

/** Replays `histories` against `code`, one line (and one JSON document) per history; returns the counts. */
export async function replayAndReport(
  code: ReplayCode,
  histories: AsyncIterable<ReplaySource> | Iterable<ReplaySource>,
  io: Io,
): Promise<ReplayCounts> {
  const counts: ReplayCounts = { ok: 0, nondeterministic: 0, failed: 0, unknown_agent: 0 };
  try {
    const outcomes = replayHistories(histories, {
      workflowsPath: code.workflowsPath,
      worker: {
        ...(code.worker.dataConverter && { dataConverter: code.worker.dataConverter }),
        ...(code.worker.interceptors && { interceptors: code.worker.interceptors }),
      },
      ...(code.agents && { agents: code.agents }),
    });
    for await (const outcome of outcomes) {
      counts[outcome.status] += 1;
      const where = outcome.source ? ` (${outcome.source})` : '';
      io.line(
        outcome.status === 'ok'
          ? `ok ${outcome.workflowId}${where}`
          : `${outcome.status.toUpperCase()} ${outcome.workflowId}${where}: ${outcome.reason}`,
      );
      io.document({
        workflowId: outcome.workflowId,
        runId: outcome.runId,
        source: outcome.source ?? null,
        status: outcome.status,
        ...(outcome.reason !== undefined && { reason: outcome.reason }),
      });
    }
  } catch (error) {
    if (error instanceof WorkflowBundleError) throw new CliError(error.message);
    // "Failed to list workflows" says little; the server's reason is in the cause (a bad query).
    const { name, message, cause } = error as {
      name?: string;
      message?: string;
      cause?: { details?: unknown; message?: unknown };
    };
    if (name === 'ServiceError' && cause)
      throw new CliError(
        `${message}: ${typeof cause.details === 'string' && cause.details ? cause.details : String(cause.message)}`,
      );
    throw error;
  }
  return counts;
}

/** `2 ok, 1 nondeterministic`: the counts that are not zero (ok always). */
export function countsText(counts: ReplayCounts): string {
  return (
    `${counts.ok} ok` +
    `${counts.nondeterministic ? `, ${counts.nondeterministic} nondeterministic` : ''}${counts.failed ? `, ${counts.failed} failed` : ''}` +
    `${counts.unknown_agent ? `, ${counts.unknown_agent} of an agent not in this build` : ''}`
  );
}
