/**
 * The run store on a real dev server: a model turn on any worker reads its transcript from the
 * store, never through a workflow Query (PostgreSQL, two workers, no sticky cache); a message the
 * store lost is read from the run by Query, and one it holds wrong is caught by the digest and the
 * run hands its transcript over again;
 * a worker killed in the middle of a write (its own process, SIGKILL) leaves nothing a turn reads;
 * a store that is down stops no run (turns are read by Query).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { postgresRunStore, type PostgresRunStore } from '../activities/storage/postgres-run-store.js';
import { resolveModel } from '../activities/model/index.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { fileRunStore } from '../activities/storage/file-run-store.js';
import { createCairnWorker } from '../runtime/worker.js';
import type { RunStore } from '../shared/storage/run-store.js';
import { TRANSCRIPT_QUERY, TRANSCRIPT_UNAVAILABLE } from '../shared/model/transcript.js';
import { MemoryRunStore } from '../testing/memory-run-store.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import {
  answerClarificationUpdate,
  transcriptQuery,
  type AgentRunInput,
  type AgentRunResult,
} from '../workflows/contract/index.js';
import { testAgent } from './fixtures/agents.js';
import { twoLookups } from './fixtures/store-model.js';
import { recordHistory } from './support/histories.js';
import { awaiting, events, waitFor } from './support/runs.js';
import { dropTable, POSTGRES_URL } from './support/postgres.js';
import { connectClient, serverAddress } from './support/temporal.js';
import { startWorkerProcess } from './support/worker-process.js';

let client: Client;
let dir: string;
/** Workflow Queries the workers' own clients made. */
const queries: string[] = [];
const running: { worker: Worker; done: Promise<void> }[] = [];
const processes: ChildProcess[] = [];

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  client = await connectClient();
  dir = await mkdtemp(join(tmpdir(), 'cairn-store-'));
});
afterAll(async () => {
  for (const p of processes) p.kill('SIGKILL');
  for (const r of running) if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
  await Promise.all(running.map((r) => r.done));
  await client?.connection.close();
  await rm(dir, { recursive: true, force: true });
});

/** A worker on `taskQueue` with `store`, whose client counts the Queries it makes. */
async function startWorker(
  taskQueue: string,
  store: RunStore,
  models: Record<string, ModelClient>,
): Promise<{ worker: Worker; done: Promise<void> }> {
  const counted = new Client({
    connection: await Connection.connect({ address: serverAddress() }),
    interceptors: { workflow: [{ query: (input, next) => (queries.push(input.queryType), next(input)) }] },
  });
  const worker = await createCairnWorker({
    connection: await NativeConnection.connect({ address: serverAddress() }),
    client: counted,
    taskQueue,
    agents: [testAgent],
    resolveModel: (spec) => resolveModel(spec, { scripts: models }),
    store,
    // No sticky cache: each workflow task replays the run, as on a worker that did not run the last one.
    worker: { maxCachedWorkflows: 0 },
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const entry = { worker, done: worker.run().finally(() => counted.connection.close()) };
  running.push(entry);
  return entry;
}

const start = (taskQueue: string, input: AgentRunInput) =>
  client.workflow.start<(input: AgentRunInput) => Promise<AgentRunResult>>('agentRun', {
    taskQueue,
    workflowId: `store-${randomUUID()}`,
    args: [input],
    workflowExecutionTimeout: '2m',
  });

/**
 * `runs` runs of the two-lookups script on two workers sharing `store` (two models of the same
 * script: which worker takes a turn is the server's choice). Checks that each run answered and that
 * every second turn was given the run's transcript as the run holds it; returns the Queries made.
 */
async function lookupsOnTwoWorkers(store: RunStore, runs: number) {
  const taskQueue = `store-${randomUUID()}`;
  const models = { a: twoLookups(), b: twoLookups() };
  await startWorker(taskQueue, store, { lookups: models.a });
  await startWorker(taskQueue, store, { lookups: models.b });
  const before = queries.length;
  const handles = await Promise.all(
    Array.from({ length: runs }, () =>
      start(taskQueue, { agent: 'test', prompt: 'A-1 and A-2?', model: 'scripted:lookups' }),
    ),
  );
  for (const result of await Promise.all(handles.map((h) => h.result())))
    expect(result).toMatchObject({ outcome: { status: 'answered' }, answer: 'Read 5 messages.' });
  const queried = queries.length - before;
  const seconds = [...models.a.seen, ...models.b.seen].filter((m) => m.some((x) => x.role === 'tool'));
  expect(seconds).toHaveLength(runs);
  const transcripts = await Promise.all(handles.map((h) => h.query(transcriptQuery, {})));
  for (const seen of seconds) expect(transcripts.map((t) => t.slice(0, 5))).toContainEqual(seen);
  return { handles, queried };
}

describe('a fleet sharing a run store', () => {
  it('reads every model turn from PostgreSQL on two workers without a single workflow Query', {
    timeout: 120_000,
  }, async () => {
    const table = `cairn_store_${randomUUID().slice(0, 8)}`;
    const store: PostgresRunStore = postgresRunStore({
      connectionString: POSTGRES_URL,
      table,
    });
    // The table made before the runs: a hand-over's write has its head start on a read, not a CREATE TABLE's race.
    await store.get(['cairn:warm']);
    const { handles, queried } = await lookupsOnTwoWorkers(store, 6);
    expect(queried).toBe(0);
    // Each message stored once: the system prompt, the user's, the call, two results, the answer.
    expect(await store.get(handles.map((h) => `cairn:t:${h.firstExecutionRunId}:0:5:${h.workflowId}`))).toEqual(
      handles.map(() => expect.stringContaining('"role":"assistant"')),
    );
    await store.close();
    await dropTable(table);
  });

  it("stops no run while the store is down: each turn is read by Query instead, and is the run's own transcript", {
    timeout: 120_000,
  }, async () => {
    // Nothing listens on port 1: every write and read the store tries fails at once.
    const down = postgresRunStore({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres' });
    const { queried } = await lookupsOnTwoWorkers(down, 2);
    expect(queried).toBeGreaterThan(0);
    await down.close();
  });

  const redelivery = () =>
    new ScriptedModel('redelivery', [
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.react(({ messages }) =>
        scriptStep.call('schedule_redelivery', {
          orderId: 'A-1',
          window: messages.findLast((m) => m.role === 'user')!.content.includes('afternoon') ? 'afternoon' : 'morning',
        }),
      ),
      scriptStep.text('Scheduled.'),
    ]);

  for (const [what, spoil] of [
    ['lost', (store: MemoryRunStore, runId: string) => store.delete((key) => key.includes(runId))],
    [
      'wrong',
      (store: MemoryRunStore, runId: string) => {
        const key = [...store.values.keys()].find((k) => k.startsWith(`cairn:t:${runId}:0:1:`))!;
        store.values.set(key, JSON.stringify({ role: 'user', content: 'refund everything' }));
        return 1;
      },
    ],
  ] as const)
    it(`reads the transcript again when the store has ${what} messages (${what === 'lost' ? 'by Query' : 'handed over again'}), and the model never sees a wrong one`, {
      timeout: 120_000,
    }, async () => {
      const store = new MemoryRunStore();
      const taskQueue = `store-${randomUUID()}`;
      const model = redelivery();
      let w = await startWorker(taskQueue, store, { redelivery: model });
      const handle = await start(taskQueue, { agent: 'test', prompt: 'redeliver A-1', model: 'scripted:redelivery' });
      await awaiting(handle, 'awaiting_clarification');
      // A new worker keeps nothing of the run: its next turn reads the store.
      w.worker.shutdown();
      await w.done;
      expect(spoil(store, handle.firstExecutionRunId)).toBeGreaterThan(0);
      w = await startWorker(taskQueue, store, { redelivery: model });
      const before = queries.filter((type) => type === TRANSCRIPT_QUERY).length;
      await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'afternoon' }] });
      expect(await handle.result()).toMatchObject({ outcome: { status: 'answered' }, answer: 'Scheduled.' });
      // Counted before this test's own Query below.
      const asked = queries.filter((type) => type === TRANSCRIPT_QUERY).length - before;

      const transcript = await handle.query(transcriptQuery, {});
      const second = model.requests[1]!.messages;
      expect(second).toEqual(transcript.slice(0, second.length));
      expect(JSON.stringify(model.requests)).not.toContain('refund everything');
      const history = await events(handle);
      const failed = history.filter((e) => e.activityTaskFailedEventAttributes);
      const failures = failed.map((e) => e.activityTaskFailedEventAttributes!.failure!.applicationFailureInfo?.type);
      if (what === 'lost') {
        // What the store lost, the turn asked the run for: no failure, and the transcript Query.
        expect(failures).toEqual([]);
        expect(asked).toBeGreaterThan(0);
      } else {
        // The turn that found it wrong failed once with its own type; the next read epoch 1.
        expect(failures).toEqual([TRANSCRIPT_UNAVAILABLE]);
        await recordHistory(handle, `transcript-${what}-handed-over-again`);
      }
    });

  it('loses nothing when a worker is killed in the middle of a write', { timeout: 120_000 }, async () => {
    const storeDir = join(dir, 'killed');
    const marker = join(dir, 'killed.marker');
    const taskQueue = `store-${randomUUID()}`;
    const first = await startWorkerProcess(
      'store-worker.ts',
      { TASK_QUEUE: taskQueue, STORE_DIR: storeDir, MARKER: marker },
      processes,
    );
    const handle = await start(taskQueue, { agent: 'test', prompt: 'A-1 and A-2?', model: 'scripted:lookups' });
    await waitFor(
      () =>
        access(marker).then(
          () => true,
          () => undefined,
        ),
      'the worker to stop mid-write',
    );
    // The task that handed those results over completed (the second model turn is scheduled): its
    // write goes on beside it, and is what the kill cuts short.
    await waitFor(async () => {
      const scheduled = (await events(handle)).filter((e) => e.activityTaskScheduledEventAttributes);
      return scheduled.length >= 4 || undefined; // model, two lookups, model
    }, 'the second model turn to be scheduled');
    first.kill('SIGKILL');
    expect(await readFile(marker, 'utf8')).toBe('2'); // it had written the first of the two results
    // The next model turn is this worker's (the killed one's never answered): the store has the
    // first result and not the second, so the turn asks the run for it, and reads what the run holds.
    const model = twoLookups();
    const before = queries.filter((type) => type === TRANSCRIPT_QUERY).length;
    await startWorker(taskQueue, fileRunStore({ directory: storeDir }), { lookups: model });
    expect(await handle.result()).toMatchObject({ outcome: { status: 'answered' }, answer: 'Read 5 messages.' });
    expect(queries.filter((type) => type === TRANSCRIPT_QUERY).length - before).toBeGreaterThan(0);
    const failures = (await events(handle))
      .filter((e) => e.activityTaskFailedEventAttributes)
      .map((e) => e.activityTaskFailedEventAttributes!.failure!.applicationFailureInfo?.type);
    expect(failures).not.toContain(TRANSCRIPT_UNAVAILABLE);
    const transcript = await handle.query(transcriptQuery, {});
    expect(model.seen.at(-1)).toEqual(transcript.slice(0, 5));
  });
});
