/**
 * What `cairn dev` and `cairn worker` share, loaded only when one of them runs: the Temporal
 * runtime's logger, the server connections, and a Cairn worker over this project's agents that
 * runs until SIGINT/SIGTERM (the runtime's default shutdown signals). Node-only.
 */
import { join } from 'node:path';
import { DefaultLogger, Runtime, type LogLevel, type Worker } from '@temporalio/worker';
import { resolveModel } from '../activities/model/index.js';
import { AGENT_TOOLS } from '../agents/index.js';
import type { Connected } from '../runtime/connection.js';
import { PROJECT_ROOT } from '../runtime/temporal-cli.js';
import { createCairnWorker } from '../runtime/worker.js';
import { demoScripts } from './demo-script.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

export { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
export { startEmbeddedServer } from '../runtime/embedded-server.js';

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Installs the runtime once, before any connection, with CAIRN_LOG_LEVEL (default WARN) on stderr. */
export function installRuntime(env: NodeJS.ProcessEnv = process.env): void {
  const level = (env.CAIRN_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  if (!LEVELS.includes(level)) throw new UsageError(`CAIRN_LOG_LEVEL must be one of ${LEVELS.join(', ')}, not "${env.CAIRN_LOG_LEVEL}"`);
  Runtime.install({ logger: new DefaultLogger(level) });
}

export interface WorkerReady {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly uiUrl: string | null;
  readonly embeddedServer: boolean;
}

/**
 * This project's worker on `connected`: the agentRun workflow from workflows/index.ts, every
 * agent's tools, models from the environment, and the demo's script for every run that wants it.
 */
export function createProjectWorker(connected: Connected, taskQueue: string): Promise<Worker> {
  const scripts = demoScripts();
  return createCairnWorker({
    connection: connected.workerConnection,
    client: connected.client,
    namespace: connected.namespace,
    taskQueue,
    tools: AGENT_TOOLS,
    resolveModel: (spec) => resolveModel(spec, { env: process.env, scripts }),
    workflowsPath: join(PROJECT_ROOT, 'workflows', 'index.ts'),
  });
}

/** Runs the project's worker until shutdown; prints where it runs once it polls. */
export async function runCairnWorker(connected: Connected, options: { taskQueue: string; embeddedServer: boolean; io: Io }): Promise<void> {
  const { io, taskQueue } = options;
  const worker = await createProjectWorker(connected, taskQueue);
  const ready: WorkerReady = {
    address: connected.address,
    namespace: connected.namespace,
    taskQueue,
    uiUrl: connected.uiUrl ?? null,
    embeddedServer: options.embeddedServer,
  };
  const running = worker.run();
  io.line(`${options.embeddedServer ? 'Embedded Temporal dev server' : 'Temporal server'} ${ready.address}, namespace ${ready.namespace}${ready.uiUrl ? `, UI ${ready.uiUrl}` : ''}`);
  io.line(`Worker polling task queue "${taskQueue}". Ctrl-C to stop.`);
  io.line(`  try: cairn run orders "Where is order A-1001?"${taskQueue === 'cairn' ? '' : ` --task-queue ${taskQueue}`}`);
  io.document(ready);
  await running;
}
