/**
 * One worker process of bench/once-under-load.ts, at the documented sizing (docs/cluster.md). Its
 * model reads its place off the transcript (any worker serves any turn): it calls `record_effect`
 * once per entry of ENTRIES, one call a turn, then answers. The tool's `execute` writes a `began`
 * row (with the attempt's workflow and activity ids), sleeps up to EFFECT_MS, then an `effect` row
 * under its idempotency key, in the PostgreSQL table EFFECTS_TABLE; nothing dedupes. Transcripts go
 * through the run store CAIRN_RUN_STORE names. Settings from the environment: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TASK_QUEUE, BUNDLE, WORKER_IDENTITY, EFFECTS_URL, EFFECTS_TABLE, EFFECT_MS,
 * MAX_CACHED_WORKFLOWS, CAIRN_RUN_STORE. Node-only.
 */
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import pg from 'pg';
import type { ModelClient } from '../activities/model/model-client.js';
import { runStoreFromEnvironment } from '../runtime/run-store-from-environment.js';
import { createCairnWorker } from '../runtime/worker.js';
import { ENTRIES, onceAgent, onceReconciledAgent, type EffectTable } from './once-under-load-agent.js';

const env = (name: string): string => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));
const table = env('EFFECTS_TABLE');
const effectMs = Number(process.env.EFFECT_MS ?? 100);
const pool = new pg.Pool({ connectionString: env('EFFECTS_URL'), max: 10 });
const identity = env('WORKER_IDENTITY');

const row = (event: 'began' | 'effect', key: string) => {
  const { workflowExecution, activityId, attempt } = Context.current().info;
  return pool.query(
    `INSERT INTO ${table} (event, key, workflow_id, activity_id, attempt, worker) VALUES ($1, $2, $3, $4, $5, $6)`,
    [event, key, workflowExecution?.workflowId ?? '', activityId, attempt, identity],
  );
};

const effects: EffectTable = {
  async record(key, entry) {
    await row('began', key);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * effectMs));
    await row('effect', key);
    return { entry };
  },
  async recorded(key) {
    const { rows } = await pool.query(`SELECT 1 FROM ${table} WHERE event = 'effect' AND key = $1 LIMIT 1`, [key]);
    return rows.length > 0;
  },
};

/** Calls the first entry no assistant message called yet; answers once every entry was called. */
const model: ModelClient = {
  async generate({ messages, tools }) {
    const called = new Set(
      messages.flatMap((m) =>
        m.role === 'assistant' ? m.toolCalls.map((c) => String((c.args as { entry?: unknown }).entry)) : [],
      ),
    );
    const entry = ENTRIES.find((e) => !called.has(e));
    if (entry === undefined)
      return { status: 'ok', response: { text: 'Recorded.', toolCalls: [], finishReason: 'stop' } };
    return {
      status: 'ok',
      response: {
        text: '',
        toolCalls: [{ id: `call-${entry}`, name: tools[0]!.name, arguments: JSON.stringify({ entry }) }],
        finishReason: 'tool_calls',
      },
    };
  },
};

const store = runStoreFromEnvironment();
Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
const worker = await createCairnWorker({
  connection,
  namespace: env('TEMPORAL_NAMESPACE'),
  taskQueue: env('TASK_QUEUE'),
  agents: [onceAgent, onceReconciledAgent],
  deps: effects,
  resolveModel: () => model,
  workflowBundle: { codePath: env('BUNDLE') },
  ...(store && { store }),
  worker: {
    identity,
    maxCachedWorkflows: Number(env('MAX_CACHED_WORKFLOWS')),
    maxConcurrentWorkflowTaskExecutions: 10,
    maxConcurrentActivityTaskExecutions: 100,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 4 },
    stickyQueueScheduleToStartTimeout: '20s',
  },
});
console.log('worker ready');
await worker.run();
await store?.close?.();
await pool.end();
await connection.close();
