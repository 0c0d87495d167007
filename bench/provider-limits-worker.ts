/**
 * A second worker process for bench/provider-limits.ts (`--workers 2`): the bench agent on the
 * bench's task queue against its provider, with the same flow control (the same Redis keys), so two
 * processes share one limit. Prints `ready` once it polls. Settings from the environment:
 * TEMPORAL_ADDRESS, TASK_QUEUE, BUNDLE (a file of workflow code), OPENAI_BASE_URL, FLOW (JSON of
 * the flow-control options, or empty for none).
 */
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createCairnWorker } from '../runtime/worker.js';
import { benchAgent } from './bench-agent.js';

const env = (name: string): string => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));

Runtime.install({ logger: new DefaultLogger('WARN') });
const address = env('TEMPORAL_ADDRESS');
const flow = process.env.FLOW ? JSON.parse(process.env.FLOW) : undefined;
const worker = await createCairnWorker({
  connection: await NativeConnection.connect({ address }),
  client: new Client({ connection: await Connection.connect({ address }) }),
  taskQueue: env('TASK_QUEUE'),
  agents: [benchAgent],
  models: {
    env: { OPENAI_BASE_URL: env('OPENAI_BASE_URL'), OPENAI_API_KEY: 'sk-bench' },
    ...(flow && { flowControl: flow }),
  },
  workflowBundle: { code: readFileSync(env('BUNDLE'), 'utf8') },
  worker: { maxCachedWorkflows: 2_000 },
});
process.on('SIGTERM', () => worker.shutdown());
const running = worker.run();
console.log('ready');
await running;
