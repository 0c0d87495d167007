/**
 * The server restarts under running agents: a dev server of its own with a database file, two
 * workers in their own processes, 35 runs of a `once` tool with effects in flight; the server gets
 * SIGTERM, and a new one starts on the same port and file. Every run completes, no effect happens
 * twice. CAIRN_RESTART_TRIALS sets how many trials run in a row (default 1; 3 locally).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile, readlink, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { stateQuery } from '../workflows/contract/index.js';
import { answerIfAsked, waitFor } from './support/runs.js';
import { startWorkerProcess } from './support/worker-process.js';
import { freePort } from './support/ports.js';

const RUNS = 35;
const TRIALS = Number(process.env.CAIRN_RESTART_TRIALS ?? 1);
/** CAIRN_RESTART_PLAIN=1: the tool without `reconcile` (an unknown outcome waits on a person: counted, and answered). */
const PLAIN = process.env.CAIRN_RESTART_PLAIN === '1';

let dir: string;
const workers: ChildProcess[] = [];
const servers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-restart-'));
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  for (const s of servers) await s.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

/** The pid of the `temporal server start-dev` process using `dbFilename` (the SDK starts it; this test owns it). */
async function serverPid(dbFilename: string): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dbFilename) && cmdline.includes('start-dev')) return Number(entry);
  }
  throw new Error(`no server process for ${dbFilename}`);
}

const alive = (pid: number) =>
  readlink(`/proc/${pid}/exe`).then(
    () => true,
    () => false,
  );

async function trial(n: number): Promise<void> {
  const dbFilename = join(dir, `trial-${n}.db`);
  const port = await freePort();
  servers.push(await startEmbeddedServer({ dbFilename, port }));
  const address = `127.0.0.1:${port}`;
  const client = new Client({ connection: await Connection.connect({ address }) });
  const taskQueue = `restart-${randomUUID()}`;
  const ledgerDir = await mkdtemp(join(dir, 'ledger-'));
  const eventsPath = join(dir, `${taskQueue}.jsonl`);
  const settings = {
    TASK_QUEUE: taskQueue,
    LEDGER_DIR: ledgerDir,
    EVENTS: eventsPath,
    PRE_MS: '1000',
    POST_MS: '1000',
  };
  await Promise.all([
    startWorkerProcess('ledger-worker.ts', settings, workers, address),
    startWorkerProcess('ledger-worker.ts', settings, workers, address),
  ]);
  const handles: WorkflowHandle[] = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      client.workflow.start(PLAIN ? 'ledgerPlainAgentRun' : 'ledgerAgentRun', {
        taskQueue,
        workflowId: `restart-${n}-${i}`,
        args: [{ agent: PLAIN ? 'ledger_plain' : 'ledger', prompt: `Append E-${i}.`, model: 'scripted:ledger' }],
      }),
    ),
  );
  await waitFor(
    async () =>
      (await readFile(eventsPath, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('"effect"')).length >= 5
        ? true
        : undefined,
    'effects in flight',
    180_000,
  );

  const pid = await serverPid(dbFilename);
  process.kill(pid, 'SIGTERM');
  const termAt = Date.now();
  await waitFor(async () => ((await alive(pid)) ? undefined : true), 'the server to stop', 60_000);
  servers.push(await startEmbeddedServer({ dbFilename, port }));
  const restartedMs = Date.now() - termAt;

  // Polled, not awaited: a result() long poll fails while the server is away.
  const done = new Set<string>();
  const questions = new Set<string>();
  const outcome = await waitFor(
    async () => {
      await Promise.all(handles.filter((h) => !done.has(h.workflowId)).map((h) => answerIfAsked(h, questions)));
      await Promise.all(
        handles
          .filter((h) => !done.has(h.workflowId))
          .map((h) =>
            h.describe().then(
              (d) => d.status.name === 'COMPLETED' && done.add(h.workflowId),
              () => {},
            ),
          ),
      );
      return done.size === RUNS || Date.now() - termAt > 150_000 ? done.size : undefined;
    },
    'the runs after the restart',
    200_000,
  );
  const closed = (
    await Promise.all(
      handles.map((h) =>
        h.describe().then(
          (d) => (d.closeTime?.getTime() ?? Infinity) - termAt,
          () => Infinity,
        ),
      ),
    )
  ).sort((x, y) => x - y);
  const stuck = await Promise.all(
    handles
      .filter((h) => !done.has(h.workflowId))
      .map(async (h) => {
        const s = await h.query(stateQuery).catch((err: Error) => ({
          phase: `query failed: ${err.message}`,
          steps: [] as { action: string; detail: string }[],
        }));
        const d = await h.describe().catch(() => undefined);
        return `${h.workflowId}: ${s.phase} (${d?.status.name}) last step ${JSON.stringify(s.steps.at(-1))}; pending ${JSON.stringify(d?.raw.pendingActivities?.map((a) => [a.activityType?.name, a.state, a.attempt, a.lastFailure?.message]))} wft ${JSON.stringify(d?.raw.pendingWorkflowTask)}`;
      }),
  );
  const files = await readdir(ledgerDir);
  const twice = handles.filter(
    (h) => files.filter((f) => decodeURIComponent(f).startsWith(`${h.workflowId}/`)).length > 1,
  ).length;
  console.log(
    `SIGTERM trial ${n}: server back in ${restartedMs} ms; ${outcome}/${RUNS} runs complete ${Date.now() - termAt} ms after the SIGTERM (closed at ${closed[0]}…${closed.at(-1)} ms, median ${closed[Math.floor(RUNS / 2)]}); ${questions.size} question(s) to a person; ${twice} duplicate effect(s)${stuck.length ? `\n  stuck: ${stuck.join('\n  stuck: ')}` : ''}`,
  );
  expect(stuck).toEqual([]);
  if (!PLAIN) expect([...questions]).toEqual([]);
  expect(twice).toBe(0);
  await client.connection.close();
}

describe('the server restarts (SIGTERM) under running agents', () => {
  it(`completes ${RUNS}/${RUNS} runs, ${TRIALS} trial(s) in a row`, { timeout: TRIALS * 480_000 }, async () => {
    for (let n = 1; n <= TRIALS; n++) await trial(n);
  });
});
