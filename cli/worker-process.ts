/**
 * What `cairn dev` and `cairn worker` share, loaded only when one of them runs: the Temporal
 * runtime's logger, the project (its cairn.config.ts), and a worker over the project's agents that
 * runs until SIGINT/SIGTERM (the runtime's default shutdown signals). Node-only.
 */
import { dirname } from 'node:path';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { CairnClient, searchAttributesHint } from '../client/cairn-client.js';
import { writeAgentsEntry } from '../runtime/agents-entry.js';
import type { Connected } from '../runtime/connection.js';
import { defaultDbFilename } from '../runtime/embedded-server.js';
import { devServerHolding } from '../runtime/dev-server-lock.js';
import { findConfig, loadProject, ProjectConfigError, type Project } from '../runtime/project-config.js';
import { runCairnWorker } from '../runtime/run-worker.js';
import { uiUrlFor } from '../runtime/temporal-target.js';
import type { WorkerTuning } from '../runtime/worker.js';
import type { WorkerVersioning } from '../runtime/worker-versioning.js';
import { describeDeployment } from '../runtime/deployments.js';
import { WorkflowBundleError } from '../runtime/workflow-bundle.js';
import { CliError, UsageError } from './errors.js';
import { CAIRN } from './invocation.js';
import type { Io } from './io.js';

export { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
export { fastDevServerHint, startEmbeddedServer } from '../runtime/embedded-server.js';

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Installs the runtime once, before any connection, with CAIRN_LOG_LEVEL (default WARN) on stderr. */
export function installRuntime(env: NodeJS.ProcessEnv = process.env): void {
  const level = (env.CAIRN_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  if (!LEVELS.includes(level))
    throw new UsageError(`CAIRN_LOG_LEVEL must be one of ${LEVELS.join(', ')}, not "${env.CAIRN_LOG_LEVEL}"`);
  // Core's own lines (TMPRL1104…) go through the logger too: its console output is stdout, where --json allows only JSON.
  Runtime.install({ logger: new DefaultLogger(level), telemetryOptions: { logging: { forward: {} } } });
}

/** The project of `--config`, or of the nearest cairn.config.ts; CliError (naming the fix) when there is none. */
export async function loadCliProject(
  configFlag: string | undefined,
  options: { readonly deps?: boolean } = {},
): Promise<Project> {
  const file = configFlag ?? findConfig();
  if (!file)
    throw new CliError(
      `No cairn.config.ts in ${process.cwd()} or any folder above it. Create one that names your agents module ` +
        "(export default defineConfig({ agents: './src/agents.ts' }), defineConfig from 'cairn-agents/worker'), " +
        'run `cairn init` for a starter project, or pass --config <file>.',
    );
  try {
    return await loadProject(file, options);
  } catch (error) {
    throw error instanceof ProjectConfigError ? new CliError(error.message) : error;
  }
}

export interface WorkerReady {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly uiUrl: string | null;
  readonly embeddedServer: boolean;
  readonly agents: readonly string[];
  readonly config: string;
  /** The build of the Worker Deployment this worker serves, when versioned. */
  readonly deployment?: { readonly deploymentName: string; readonly buildId: string; readonly defaultBehavior: string };
}

/** Runs the project's worker until shutdown; prints where it runs, and how to start a run there, once it polls. */
export async function runProjectWorker(
  connected: Connected,
  project: Project,
  options: {
    taskQueue: string;
    embeddedServer: boolean;
    io: Io;
    worker?: WorkerTuning;
    /** Worker Deployment Versioning (`cairn worker` only): this worker is one build of a deployment. */
    versioning?: WorkerVersioning;
  },
): Promise<void> {
  const { io, taskQueue } = options;
  // A server of another process: its UI is where that process put it, not always port + 1000.
  if (!options.embeddedServer) connected = { ...connected, uiUrl: await serverUiUrl(connected, project) };
  const workflowsPath = await writeAgentsEntry(project.agentsModule);
  // A server of yours may lack Cairn's search attributes: runs then work, but the UI's filters do not.
  if (!options.embeddedServer) {
    const missing = await new CairnClient({ client: connected.client }).missingSearchAttributes();
    if (missing.length > 0) io.error(searchAttributesHint(connected.namespace, missing));
  }
  try {
    await runCairnWorker({
      connected,
      taskQueue,
      agents: project.agents,
      deps: project.deps,
      ...(project.models && { models: project.models }),
      worker: { ...project.worker, ...options.worker },
      ...(options.versioning && { versioning: options.versioning }),
      workflowsPath,
      onReady: ({ version }) => {
        const ready: WorkerReady = {
          address: connected.address,
          namespace: connected.namespace,
          taskQueue,
          uiUrl: connected.uiUrl ?? null,
          embeddedServer: options.embeddedServer,
          agents: project.agents.map((agent) => agent.name),
          config: project.configFile,
          ...(version &&
            options.versioning && {
              deployment: { ...version, defaultBehavior: options.versioning.defaultBehavior ?? 'pinned' },
            }),
        };
        io.line(
          `${options.embeddedServer ? 'Embedded Temporal dev server' : 'Temporal server'} ${ready.address}, namespace ${ready.namespace}${ready.uiUrl ? `, UI ${ready.uiUrl}` : ''}`,
        );
        io.line(
          `Worker polling task queue "${taskQueue}" for ${ready.agents.join(', ')} (${project.configFile}). Ctrl-C to stop.`,
        );
        if (ready.deployment) {
          const { deploymentName, buildId, defaultBehavior } = ready.deployment;
          io.line(
            `Build "${buildId}" of Worker Deployment "${deploymentName}" (runs of agents that do not choose: ${defaultBehavior}).`,
          );
          void promotionHint(connected, ready.deployment, taskQueue).then((hint) => hint && io.line(hint));
        }
        io.line(`  try: ${runHint(connected, taskQueue, ready.agents[0] ?? 'agent')}`);
        io.document(ready);
      },
    });
  } catch (error) {
    throw error instanceof WorkflowBundleError ? new CliError(error.message) : error;
  }
}

/**
 * The UI of a server this process did not start: TEMPORAL_UI_URL; else the UI a `cairn dev` of
 * this project (its `.temporal/cairn.db.lock`) says it serves for that address; else the local
 * guess (port + 1000) only when something answers there; else none.
 */
async function serverUiUrl(
  connected: Connected,
  project: Project,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (env.TEMPORAL_UI_URL) return env.TEMPORAL_UI_URL;
  const port = /:(\d+)$/.exec(connected.address)?.[1];
  for (const dir of new Set([process.cwd(), dirname(project.configFile)])) {
    const holder = devServerHolding(defaultDbFilename(dir));
    if (holder?.uiUrl && port !== undefined && holder.address.endsWith(`:${port}`)) return holder.uiUrl;
  }
  const guess = uiUrlFor(connected.address, env);
  if (!guess) return undefined;
  const answers = await fetch(guess, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
  return answers ? guess : undefined;
}

/**
 * What to run when this build is not the deployment's current one: until it is promoted, new runs
 * go to the current build (or, before any promotion, to no versioned worker at all).
 */
async function promotionHint(
  connected: Connected,
  deployment: { readonly deploymentName: string; readonly buildId: string },
  taskQueue: string,
): Promise<string | undefined> {
  // The server registers a build when its first poll arrives: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const found = await describeDeployment(connected.client, deployment.deploymentName).catch(() => undefined);
  if (found?.current === deployment.buildId) return `  This build is the current one: new runs start here.`;
  // The gate replays the open unversioned runs of this worker's task queue: it must name it.
  const promote = `${CAIRN} deploy set-current --deployment-name ${deployment.deploymentName} --build-id ${deployment.buildId} --task-queue ${taskQueue}`;
  return found?.current
    ? `  New runs go to build "${found.current}" until you promote this one: ${promote}`
    : `  The deployment has no current build, so no run is sent here yet: ${promote}`;
}

/** The `cairn run` line that reaches this server and its UI from another terminal. */
function runHint(connected: Connected, taskQueue: string, agent: string): string {
  const env = [
    ...(connected.address.replace(/^(127\.0\.0\.1|localhost):/, 'localhost:') !== 'localhost:7233'
      ? [`TEMPORAL_ADDRESS=${connected.address}`]
      : []),
    ...(connected.uiUrl && connected.uiUrl !== uiUrlFor(connected.address, {})
      ? [`TEMPORAL_UI_URL=${connected.uiUrl}`]
      : []),
  ];
  return [...env, `${CAIRN} run ${agent} "…"`, ...(taskQueue === 'cairn' ? [] : [`--task-queue ${taskQueue}`])].join(
    ' ',
  );
}
