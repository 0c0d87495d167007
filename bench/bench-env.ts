/**
 * What the benches run on: a Temporal server (the embedded dev server, in memory, on free ports;
 * or yours when TEMPORAL_ADDRESS or a profile is set), the bench workflow bundle, and one worker
 * with Cairn's tool and model activities plus the baselines' activities (the naive model activity,
 * a bare activity); more workers with other Worker options on request. Everything in one
 * process, so the figures are ratios of like with like. Node-only.
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveModel, type ModelClient } from '../activities/model/index.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { Script } from '../testing/script-steps.js';
import { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
import { startEmbeddedServer, type DynamicConfig } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker, type WorkerTuning } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { benchAgent } from './bench-agent.js';
import { bareActivities } from './bare-activities.js';
import { createNaiveModelActivities } from './naive-model-activity.js';
import { historyStats, type HistoryStats } from './history-stats.js';

export interface BenchRun<T> extends HistoryStats {
  readonly workflowId: string;
  /** The chain's first run (chainEvents in history-stats.ts). */
  readonly firstRunId: string;
  /** Wall time from the start request to the result, in milliseconds. */
  readonly ms: number;
  readonly result: T;
}

export interface RunOptions {
  /** Called once the run started, e.g. to follow its events. */
  readonly started?: (workflowId: string) => void;
  /** Default 10 minutes. */
  readonly timeoutMs?: number;
}

/** One worker of the bench on its own task queue, and how to run workflows on it. */
export interface BenchWorker {
  /**
   * Runs `workflowType` to completion and measures it. `script` becomes a fresh scripted model
   * (or is a model client of its own) whose spec (`scripted:<name>`) `input` receives; null for a
   * workflow with no model turns.
   */
  run<T>(
    workflowType: string,
    script: Script | ModelClient | null,
    input: (model: string) => unknown,
    options?: RunOptions,
  ): Promise<BenchRun<T>>;
  /** The same without the history figures (no history fetched): for many runs at once. */
  execute<T>(
    workflowType: string,
    script: Script | ModelClient | null,
    input: (model: string) => unknown,
    options?: RunOptions,
  ): Promise<Pick<BenchRun<T>, 'workflowId' | 'firstRunId' | 'ms' | 'result'>>;
}

export interface BenchEnv extends BenchWorker {
  readonly client: Client;
  /** Where the runs went, for the report's header. */
  readonly server: string;
  /** Another worker with these Temporal Worker options, on a task queue of its own; stop it with `close()`. */
  startWorker(tuning: WorkerTuning): Promise<BenchWorker & { close(): Promise<void> }>;
  close(): Promise<void>;
}

export interface BenchEnvOptions {
  /** The embedded server's dynamic config (default FAST_DEV_SERVER_CONFIG); ignored for a server of yours. */
  readonly dynamicConfig?: DynamicConfig;
  readonly log?: (line: string) => void;
}

let runtimeInstalled = false;

export async function startBenchEnv(options: BenchEnvOptions = {}): Promise<BenchEnv> {
  const log = options.log ?? ((line: string) => console.error(line));
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
  const external = hasExternalServer();
  const [connected, bundle] = await Promise.all([
    external ? connectFromEnvironment() : startEmbeddedServer({ log, dynamicConfig: options.dynamicConfig }),
    bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'workflows.ts')),
  ]);
  const { client } = connected;
  // Live scripted models by name, so each run gets its own (they are stateful: one step per call).
  const scripts: Record<string, ModelClient> = {};
  const resolve = (spec: string) => resolveModel(spec, { scripts });

  async function startWorker(tuning: WorkerTuning = {}): Promise<BenchWorker & { close(): Promise<void> }> {
    // A fresh queue per worker: a shared server may have other workers, none of them with this bundle.
    // Short, as a real one is (`cairn`): the name is written into every activity and workflow task.
    const taskQueue = `cairn-bench-${randomUUID().slice(0, 8)}`;
    const worker = await createCairnWorker({
      connection: connected.workerConnection,
      client,
      namespace: connected.namespace,
      taskQueue,
      agents: [benchAgent],
      resolveModel: resolve,
      workflowBundle: { code: bundle.code },
      activities: { ...createNaiveModelActivities({ resolve }), ...bareActivities }, // the baselines' activities
      worker: tuning,
    });
    const running = worker.run();
    const execute = async <T>(
      workflowType: string,
      script: Script | ModelClient | null,
      input: (model: string) => unknown,
      options: RunOptions = {},
    ) => {
      const name = `bench-${randomUUID().slice(0, 8)}`;
      // No copies of requests: a long run's transcripts would add up.
      if (script)
        scripts[name] = Array.isArray(script)
          ? new ScriptedModel(name, script, { record: false })
          : (script as ModelClient);
      const workflowId = `${workflowType}-${name}`;
      try {
        const started = performance.now();
        const handle = await client.workflow.start(workflowType, {
          taskQueue,
          workflowId,
          args: [input(`scripted:${name}`)],
          workflowExecutionTimeout: options.timeoutMs ?? 600_000,
        });
        options.started?.(workflowId);
        const result = (await handle.result()) as T;
        return { workflowId, ms: performance.now() - started, result, firstRunId: handle.firstExecutionRunId };
      } finally {
        delete scripts[name]; // a scripted model keeps every request it saw
      }
    };
    return {
      async run<T>(
        workflowType: string,
        script: Script | ModelClient | null,
        input: (model: string) => unknown,
        options?: RunOptions,
      ): Promise<BenchRun<T>> {
        const run = await execute<T>(workflowType, script, input, options);
        return { ...run, ...(await historyStats(client, run.workflowId, run.firstRunId)) };
      },
      async execute<T>(
        workflowType: string,
        script: Script | ModelClient | null,
        input: (model: string) => unknown,
        options?: RunOptions,
      ) {
        return execute<T>(workflowType, script, input, options);
      },
      async close() {
        worker.shutdown();
        await running;
      },
    };
  }

  const main = await startWorker();
  const extra = new Set<{ close(): Promise<void> }>();
  return {
    client,
    server: external ? connected.address : `embedded dev server (${connected.address}, in memory)`,
    run: main.run,
    execute: main.execute,
    async startWorker(tuning) {
      const worker = await startWorker(tuning);
      const handle = { ...worker, close: () => (extra.delete(handle), worker.close()) };
      extra.add(handle);
      return handle;
    },
    async close() {
      for (const worker of [...extra]) await worker.close();
      await main.close();
      await connected.close();
    },
  };
}

/** The report's first line: where and on what the figures were measured. */
export function benchHeader(env: BenchEnv): string {
  return `Cairn benchmarks: Node ${process.version}, ${cpus().length} cores, ${env.server}\n`;
}

/** Runs `bench` on a fresh environment when `moduleUrl` is the script node was started with. */
export async function runAlone(moduleUrl: string, bench: (env: BenchEnv) => Promise<string>): Promise<void> {
  if (!process.argv[1] || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  const env = await startBenchEnv();
  try {
    console.log(benchHeader(env));
    console.log(await bench(env));
  } finally {
    await env.close();
  }
}
