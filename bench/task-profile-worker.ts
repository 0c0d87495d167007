/**
 * The worker process of bench/workflow-task-profile.ts: two Cairn workers (the profile agent's
 * tools, the model activity), one on `<TASK_QUEUE>-cairn` with agentRun's bundle and the run store
 * CAIRN_STORE names, if any, and one on `<TASK_QUEUE>-plain` with the plain loop's and no store (the
 * plain loop hands nothing over), in a process of its own so that its CPU, and
 * its `--cpu-prof` profiles (one per thread: the main thread, and each worker's workflow thread),
 * are the workers' alone. The model answers from PROFILE_SCRIPT at the step after the
 * replies the transcript holds, so it keeps no state per run and serves both loops alike.
 *
 * Over IPC the parent sends `{ mark: label }`, answered with `{ mark, at, cpu }` (the moment on the
 * profiler's clock, in µs, and this process's CPU so far), and `{ stop: true }`, after which the
 * worker shuts down and the process exits (writing its profiles). Prints `worker ready` once
 * polling. Settings from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE,
 * CAIRN_BUNDLE, PLAIN_BUNDLE, and optionally CAIRN_STORE (`redis`: REDIS_URL, default local;
 * `postgres`: POSTGRES_URL, default local, in a table of its own dropped at the end; `dir`:
 * CAIRN_STORE_DIR, which the parent makes and removes).
 * Run by bench/workflow-task-profile.ts (node --import tsx). Node-only.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { fileRunStore } from '../activities/storage/file-run-store.js';
import { postgresRunStore } from '../activities/storage/postgres-run-store.js';
import { redisRunStore } from '../activities/storage/redis-run-store.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { RunStore } from '../shared/storage/run-store.js';
import { createCairnWorker } from '../runtime/worker.js';
import { repliesIn } from '../testing/script-position.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import { fetchRecord, recordId } from './bench-agent.js';
import { profileAgent, scheduleDelivery } from './task-profile-agent.js';

const env = (name: string): string => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));

/** Step k answers a transcript holding k replies: turn 1 a batch of 3 (one asks a person), turn 2 one call, turn 3 text. */
export const PROFILE_SCRIPT: Script = [
  scriptStep.calls([
    { name: fetchRecord.name, arguments: { id: recordId(1, 1) } },
    { name: fetchRecord.name, arguments: { id: recordId(1, 2) } },
    { name: scheduleDelivery.name, arguments: { id: recordId(1, 3) } },
  ]),
  scriptStep.call(fetchRecord.name, { id: recordId(2, 1) }),
  scriptStep.text('Done: records fetched, delivery scheduled.'),
];

/** What the worker answers a mark with. */
export interface WorkerMark {
  readonly mark: string;
  /** On the clock `--cpu-prof` timestamps with (µs). */
  readonly at: number;
  /** process.cpuUsage() so far, µs. */
  readonly cpu: { readonly user: number; readonly system: number };
}

const model: ModelClient = {
  generate(input: GenerateInput): Promise<ModelOutcome> {
    const step = repliesIn(input.messages);
    return new ScriptedModel('task-profile', PROFILE_SCRIPT.slice(step), { record: false }).generate(input);
  },
};

/** The store CAIRN_STORE names, and what lets go of it (and of what this run of the bench left in it). */
async function benchStore(kind: string): Promise<{ store: RunStore; close: () => Promise<void> }> {
  if (kind === 'redis') {
    // Keys hold the run id, so runs never collide; an hour's TTL instead of 30 days' leaves nothing behind for long.
    const store = redisRunStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ttlMs: 3_600_000 });
    return { store, close: () => store.close!() };
  }
  if (kind === 'postgres') {
    const connectionString = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const table = `cairn_bench_${randomUUID().slice(0, 8)}`;
    const store = postgresRunStore({ connectionString, table });
    const close = async () => {
      await store.close();
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query(`DROP TABLE IF EXISTS ${table}`).finally(() => client.end());
    };
    return { store, close };
  }
  if (kind === 'dir') return { store: fileRunStore({ directory: env('CAIRN_STORE_DIR') }), close: async () => {} };
  console.error(`CAIRN_STORE=${kind}: use redis, postgres or dir`);
  return process.exit(2);
}

if (process.env.CAIRN_BUNDLE) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const bench = process.env.CAIRN_STORE ? await benchStore(process.env.CAIRN_STORE) : undefined;
  // Connects (and makes PostgreSQL's table) before polling: no measured task pays for it, and a store that is down stops the bench here.
  await bench?.store.get(['cairn:bench:ready']);
  const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
  const namespace = env('TEMPORAL_NAMESPACE');
  const client = new Client({ connection, namespace });
  // One worker per bundle, each with its own workflow thread; the same activities on both.
  const workers = await Promise.all(
    (['cairn', 'plain'] as const).map((loop) =>
      createCairnWorker({
        connection,
        client,
        namespace,
        taskQueue: `${env('TASK_QUEUE')}-${loop}`,
        agents: [profileAgent],
        resolveModel: () => model,
        workflowBundle: { codePath: env(loop === 'cairn' ? 'CAIRN_BUNDLE' : 'PLAIN_BUNDLE') },
        ...(loop === 'cairn' && bench && { store: bench.store }),
      }),
    ),
  );
  process.on('message', (message: { mark?: string; stop?: boolean }) => {
    if (message.mark !== undefined)
      // process.hrtime is the monotonic clock V8's profiler stamps its samples with.
      process.send?.({
        mark: message.mark,
        at: Number(process.hrtime.bigint() / 1_000n),
        cpu: process.cpuUsage(),
      } satisfies WorkerMark);
    if (message.stop) for (const worker of workers) worker.shutdown();
  });
  console.log('worker ready');
  await Promise.all(workers.map((worker) => worker.run()));
  // A store's open socket (Redis, PostgreSQL) would keep this process, and the parent waiting on it, alive.
  await bench?.close();
  await connection.close();
  process.disconnect?.();
}
