/**
 * One worker process of bench/cluster.ts: the bench agent (bench/bench-agent.ts) on the cluster's
 * task queue, with a scripted model that reads its place in the script off the transcript, so any
 * worker can serve any turn of any run (a run whose worker was killed goes on elsewhere). Reports
 * its RSS, cached runs, model calls and transcript Queries to the parent over IPC every second. Run by bench/cluster.ts (node
 * --import tsx); settings from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE,
 * BUNDLE, WORKER_IDENTITY, TURNS, MAX_CACHED_WORKFLOWS.
 */
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { createCairnWorker } from '../runtime/worker.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { benchAgent } from './bench-agent.js';
import { toolTurnsScript } from './bench-script.js';

const env = (name: string): string => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));

/** What the worker tells bench/cluster.ts. */
export interface WorkerStats {
  readonly rss: number;
  readonly cached: number;
  readonly modelCalls: number;
  /** Transcript Queries the model activity made (the run's transcript was not on this worker), and how many failed. */
  readonly queries: number;
  readonly failedQueries: number;
}

const script = toolTurnsScript(Number(env('TURNS')));
let modelCalls = 0;
/** Step k of the script answers a transcript with k assistant messages: stateless, the same on every worker. */
const model: ModelClient = {
  generate(input: GenerateInput) {
    modelCalls++;
    const step = input.messages.filter((message) => message.role === 'assistant').length;
    return new ScriptedModel('cluster', script.slice(step), { record: false }).generate(input);
  },
};

let queries = 0;
let failedQueries = 0;
Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
// The model activity's client, counting its Queries: a run's transcript reaches a model turn by
// the worker's transcript sink when that worker ran the run's last workflow task, else by Query.
const client = new Client({
  connection,
  namespace: env('TEMPORAL_NAMESPACE'),
  interceptors: {
    workflow: [
      {
        query: (input, next) => {
          queries++;
          return next(input).catch((error: unknown) => {
            failedQueries++;
            throw error;
          });
        },
      },
    ],
  },
});
const worker = await createCairnWorker({
  connection,
  client,
  namespace: env('TEMPORAL_NAMESPACE'),
  taskQueue: env('TASK_QUEUE'),
  agents: [benchAgent],
  resolveModel: () => model,
  workflowBundle: { codePath: env('BUNDLE') },
  worker: { identity: env('WORKER_IDENTITY'), maxCachedWorkflows: Number(env('MAX_CACHED_WORKFLOWS')) },
});
setInterval(
  () =>
    process.send?.({
      rss: process.memoryUsage.rss(),
      cached: worker.getStatus().numCachedWorkflows,
      modelCalls,
      queries,
      failedQueries,
    } satisfies WorkerStats),
  1_000,
).unref();
console.log('worker ready');
await worker.run();
