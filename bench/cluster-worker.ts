/**
 * One worker process of bench/cluster.ts: the bench agent (bench/bench-agent.ts) on the cluster's
 * task queue, with a scripted model that reads its place in the script off the transcript, so any
 * worker can serve any turn of any run (a run whose worker was killed goes on elsewhere), and
 * answers "v2: …" when the run's prompt is the second build's. Transcripts go through the run store
 * CAIRN_RUN_STORE names. With DEPLOYMENT_NAME and BUILD_ID the worker is a version of that Worker
 * Deployment (runs pinned to the version they start on). Reports its RSS, cached runs, model calls
 * and transcript Queries to the parent over IPC every second. Run by bench/cluster.ts (node
 * --import tsx); settings from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE,
 * BUNDLE, WORKER_IDENTITY, TURNS, MAX_CACHED_WORKFLOWS, CAIRN_RUN_STORE, DEPLOYMENT_NAME, BUILD_ID,
 * and the sizing: WORKFLOW_TASK_SLOTS, ACTIVITY_SLOTS, WORKFLOW_POLLERS, STICKY_TIMEOUT.
 */
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { createCairnWorker } from '../runtime/worker.js';
import { runStoreFromEnvironment } from '../runtime/run-store-from-environment.js';
import { V2_MARK } from './cluster-v2-workflows.js';
import { createNaiveModelActivities } from './naive-model-activity.js';
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
  /** The plain loop's Queries (workflow ids `plain-…`), counted apart. */
  readonly baselineQueries: number;
}

const script = toolTurnsScript(Number(env('TURNS')));
let modelCalls = 0;
/** Step k of the script answers a transcript with k assistant messages: stateless, the same on every worker. */
const model: ModelClient = {
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    modelCalls++;
    const step = input.messages.filter((message) => message.role === 'assistant').length;
    const outcome = await new ScriptedModel('cluster', script.slice(step), { record: false }).generate(input);
    const v2 = input.messages.some((m) => m.role === 'system' && m.content.endsWith(V2_MARK));
    const response = outcome.status === 'ok' ? outcome.response : null;
    if (!v2 || !response?.text) return outcome;
    return { ...outcome, status: 'ok', response: { ...response, text: `v2: ${response.text}` } };
  },
};

/** The documented sizing (docs/cluster.md), as the bench passes it. */
function sizing() {
  const number = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const workflowTaskSlots = number('WORKFLOW_TASK_SLOTS');
  const activitySlots = number('ACTIVITY_SLOTS');
  const pollers = number('WORKFLOW_POLLERS');
  return {
    ...(workflowTaskSlots && { maxConcurrentWorkflowTaskExecutions: workflowTaskSlots }),
    ...(activitySlots && { maxConcurrentActivityTaskExecutions: activitySlots }),
    ...(pollers && { workflowTaskPollerBehavior: { type: 'simple-maximum' as const, maximum: pollers } }),
    ...(process.env.STICKY_TIMEOUT && { stickyQueueScheduleToStartTimeout: process.env.STICKY_TIMEOUT }),
  };
}

const store = runStoreFromEnvironment();
let queries = 0;
let failedQueries = 0;
let baselineQueries = 0;
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
          if (input.workflowExecution.workflowId.startsWith('plain-')) {
            baselineQueries++;
            return next(input);
          }
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
  // The plain Temporal loop the bench measures Cairn against (bench/plain-agent-loop.ts, transcript as input).
  activities: createNaiveModelActivities({ resolve: () => model }),
  workflowBundle: { codePath: env('BUNDLE') },
  ...(store && { store }),
  worker: {
    identity: env('WORKER_IDENTITY'),
    maxCachedWorkflows: Number(env('MAX_CACHED_WORKFLOWS')),
    ...sizing(),
    ...(process.env.DEPLOYMENT_NAME && {
      workerDeploymentOptions: {
        version: { deploymentName: process.env.DEPLOYMENT_NAME, buildId: env('BUILD_ID') },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    }),
  },
});
setInterval(
  () =>
    process.send?.({
      rss: process.memoryUsage.rss(),
      cached: worker.getStatus().numCachedWorkflows,
      modelCalls,
      queries,
      failedQueries,
      baselineQueries,
    } satisfies WorkerStats),
  1_000,
).unref();
console.log('worker ready');
await worker.run();
// What keeps a socket open (a Redis store's client) would keep this process, and the bench waiting on it, alive.
await store?.close?.();
await connection.close();
