/**
 * Worker Deployment Versioning for a Cairn worker (docs/upgrades.md): the worker serves one build
 * (a build id) of a deployment (a name every build shares), and the server routes each run to the
 * build it belongs to: a pinned run to the build it started on, an auto-upgrade run to the
 * deployment's current build at its next workflow task. Off unless asked for. Node-only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkerOptions, WorkflowBundleOption } from '@temporalio/worker';
import type { Agent } from '../shared/agent/define-agent.js';
import { TEMPORAL_BEHAVIORS, type AgentVersioning } from '../shared/agent/versioning.js';

/** `createCairnWorker({ versioning })`: which build of which deployment this worker is. */
export interface WorkerVersioning {
  /** The Worker Deployment: one name for every build of these agents, e.g. your package's name. No `.`. */
  readonly deploymentName: string;
  /**
   * This build's id, e.g. the git commit. Default: `cairn@` and 12 hex digits of the SHA-256 of the
   * workflow bundle, the same for every worker built from the same files in the same place.
   */
  readonly buildId?: string;
  /**
   * How runs of agents that do not choose (`defineAgent({ versioning })`) move between builds:
   * `pinned` (the default) stay on the build they started on until they end; `auto-upgrade` move to
   * the deployment's current build at their next workflow task.
   */
  readonly defaultBehavior?: AgentVersioning;
}

/** The deployment version and default behavior a versioned worker registers with the server. */
export type WorkerDeployment = NonNullable<WorkerOptions['workerDeploymentOptions']>;

/** `cairn@` and 12 hex digits of the bundle's SHA-256: names the code as the SDK's 64-digit default does. */
export async function bundleBuildId(bundle: WorkflowBundleOption): Promise<string> {
  const code = 'code' in bundle ? bundle.code : await readFile(bundle.codePath, 'utf8');
  return `cairn@${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

/** Why a deployment name cannot be used (empty, or a `.` or `:`, which the server refuses), or undefined. */
export function deploymentNameProblem(name: string): string | undefined {
  if (!name.trim()) return 'a deployment name cannot be empty';
  if (/[.:]/.test(name)) return `deployment name "${name}" cannot contain "." or ":" (Temporal's rule)`;
  return undefined;
}

/** A deployment name made from a package name: `@acme/support.agents` → `@acme/support-agents`. */
export function deploymentNameOf(packageName: string): string {
  return packageName.trim().replace(/\./g, '-') || 'cairn';
}

/**
 * The Worker options for `versioning` (none when it is not given). Throws an Error when the Worker
 * options set versioning of their own as well, or when an agent chooses a behavior that a worker
 * Temporal does not version would fail every workflow task over.
 */
export async function versioningOptions(
  versioning: WorkerVersioning | undefined,
  bundle: WorkflowBundleOption,
  tuning: Pick<WorkerOptions, 'workerDeploymentOptions' | 'buildId' | 'useVersioning'>,
  agents: readonly Agent[],
): Promise<Pick<WorkerOptions, 'workerDeploymentOptions'>> {
  const choosing = agents.filter((agent) => agent.versioning !== undefined).map((agent) => agent.name);
  if (choosing.length > 0 && (tuning.useVersioning || tuning.workerDeploymentOptions?.useWorkerVersioning === false))
    throw new Error(
      `createCairnWorker: agent ${choosing.map((name) => `"${name}"`).join(', ')} chooses its versioning, which needs Worker Deployment Versioning: ` +
        'give `versioning` (or `worker.workerDeploymentOptions` with `useWorkerVersioning: true`), not build-id versioning or an unversioned deployment.',
    );
  if (!versioning) return {};
  if (tuning.workerDeploymentOptions || tuning.buildId !== undefined || tuning.useVersioning)
    throw new Error(
      "createCairnWorker: `versioning` sets the worker's deployment and build id; leave `worker.workerDeploymentOptions`, `worker.buildId` and `worker.useVersioning` unset.",
    );
  const problem = deploymentNameProblem(versioning.deploymentName);
  if (problem) throw new Error(`createCairnWorker: ${problem}.`);
  if (versioning.buildId !== undefined && !versioning.buildId.trim())
    throw new Error('createCairnWorker: `versioning.buildId` is empty; leave it out for the bundle-derived one.');
  return {
    workerDeploymentOptions: {
      version: {
        deploymentName: versioning.deploymentName,
        buildId: versioning.buildId ?? (await bundleBuildId(bundle)),
      },
      useWorkerVersioning: true,
      defaultVersioningBehavior: TEMPORAL_BEHAVIORS[versioning.defaultBehavior ?? 'pinned'],
    },
  };
}
