/**
 * What the benches run on: a Temporal server (the embedded dev server, in memory, on free ports;
 * or yours when TEMPORAL_ADDRESS or a profile is set), the bench workflow bundle, and one worker
 * with Cairn's tool and model activities plus the naive baseline's model activity. Everything in
 * one process, so the figures are ratios of like with like. Node-only.
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
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { benchAgent } from './bench-agent.js';
import { createNaiveModelActivities } from './naive-model-activity.js';
import { historyStats, type HistoryStats } from './history-stats.js';

export interface BenchRun<T> extends HistoryStats {
  readonly workflowId: string;
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

export interface BenchEnv {
  readonly client: Client;
  /** Where the runs went, for the report's header. */
  readonly server: string;
  /**
   * Runs `workflowType` to completion and measures it. `script` becomes a fresh scripted model
   * whose spec (`scripted:<name>`) `input` receives; null for a workflow with no model turns.
   */
  run<T>(workflowType: string, script: Script | null, input: (model: string) => unknown, options?: RunOptions): Promise<BenchRun<T>>;
  close(): Promise<void>;
}

export async function startBenchEnv(log: (line: string) => void = (line) => console.error(line)): Promise<BenchEnv> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const external = hasExternalServer();
  const [connected, bundle] = await Promise.all([
    external ? connectFromEnvironment() : startEmbeddedServer({ log }),
    bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'workflows.ts')),
  ]);
  const { client } = connected;
  // A fresh queue per process: a shared server may have other workers, none of them with this bundle.
  const taskQueue = `cairn-bench-${randomUUID()}`;
  // Live scripted models by name, so each run gets its own (they are stateful: one step per call).
  const scripts: Record<string, ModelClient> = {};
  const resolve = (spec: string) => resolveModel(spec, { scripts });
  const worker = await createCairnWorker({
    connection: connected.workerConnection,
    client,
    namespace: connected.namespace,
    taskQueue,
    agents: [benchAgent],
    resolveModel: resolve,
    workflowBundle: { code: bundle.code },
    activities: createNaiveModelActivities({ resolve }), // the naive baseline's model activity
  });
  const running = worker.run();

  return {
    client,
    server: external ? connected.address : `embedded dev server (${connected.address}, in memory)`,
    async run<T>(workflowType: string, script: Script | null, input: (model: string) => unknown, options: RunOptions = {}): Promise<BenchRun<T>> {
      const name = `bench-${randomUUID().slice(0, 8)}`;
      // No copies of requests: a long run's transcripts would add up.
      if (script) scripts[name] = new ScriptedModel(name, script, { record: false });
      const workflowId = `${workflowType}-${name}`;
      try {
        const started = performance.now();
        const handle = await client.workflow.start(workflowType, { taskQueue, workflowId, args: [input(`scripted:${name}`)], workflowExecutionTimeout: options.timeoutMs ?? 600_000 });
        options.started?.(workflowId);
        const result = (await handle.result()) as T;
        const ms = performance.now() - started;
        return { workflowId, ms, result, ...(await historyStats(client, workflowId, handle.firstExecutionRunId)) };
      } finally {
        delete scripts[name]; // a scripted model keeps every request it saw
      }
    },
    async close() {
      worker.shutdown();
      await running;
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
