/**
 * Issue #18, scaling out: Cairn on a real Temporal server with several worker processes, one of
 * them SIGKILLed mid-load. Starts the server as docker-compose.yml describes it (bench/cluster-
 * server.ts: built with Go, on PostgreSQL) unless TEMPORAL_ADDRESS names one; starts WORKERS
 * worker processes on one task queue (bench/cluster-worker.ts); pushes RUNS agentRun runs of TURNS
 * tool turns through them through CairnClient, at most IN_FLIGHT at a time; SIGKILLs the last
 * worker once a third of the runs completed and restarts nothing; waits for every run (or the
 * deadline, then says which are missing); reads every run's history. Prints runs completed, wall
 * time, throughput per worker, history per run, timeouts and retries. Not part of `npm test` or
 * `npm run bench`:
 *
 *   npm run bench:cluster -- [--runs 5000] [--workers 3] [--turns 3] [--in-flight 200]
 *     [--cache <runs per worker>] [--kill-at 0.33] [--deadline-minutes 90]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import protos, { type temporal } from '@temporalio/proto';
import { CairnClient } from '../client/cairn-client.js';
import { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import type { AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { prepareNamespace, startClusterServer, type ClusterServer } from './cluster-server.js';
import type { WorkerStats } from './cluster-worker.js';
import { figure, median, table } from './report.js';

const { EventType, TimeoutType } = protos.temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;
const MiB = 1024 * 1024;

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    workers: { type: 'string', default: '3' },
    turns: { type: 'string', default: '3' },
    'in-flight': { type: 'string', default: '200' },
    cache: { type: 'string' },
    'kill-at': { type: 'string', default: '0.33' },
    'deadline-minutes': { type: 'string', default: '90' },
  },
});
const RUNS = Number(flags.runs);
const WORKERS = Number(flags.workers);
const TURNS = Number(flags.turns);
const IN_FLIGHT = Math.min(Number(flags['in-flight']), RUNS);
// Sized for the survivors: once a worker dies, the others hold every run in flight.
const CACHE = Number(flags.cache ?? Math.ceil(IN_FLIGHT / Math.max(WORKERS - 1, 1)) + 50);
const KILL_AT = Number(flags['kill-at']);
const DEADLINE_MS = Number(flags['deadline-minutes']) * 60_000;
if (
  ![RUNS, WORKERS, TURNS, IN_FLIGHT, CACHE, DEADLINE_MS].every((n) => Number.isInteger(n) && n > 0) ||
  !(KILL_AT > 0 && KILL_AT < 1) ||
  WORKERS < 2
) {
  console.error(
    'bench/cluster.ts: --runs, --turns, --in-flight, --cache, --deadline-minutes are positive integers, --workers at least 2 (one is killed), --kill-at between 0 and 1.',
  );
  process.exit(2);
}
/** Start requests at once: a burst of hundreds times out on a loaded server. */
const STARTS_AT_ONCE = 20;
/** Runs whose history bytes are read (describe()), spread evenly over all of them. */
const SIZE_SAMPLE = 100;

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

interface WorkerProcess {
  readonly identity: string;
  readonly child: ChildProcess;
  peakRss: number;
  peakCached: number;
  modelCalls: number;
  queries: number;
  failedQueries: number;
  killedAt?: number;
}

function startWorker(index: number, settings: Record<string, string>): Promise<WorkerProcess> {
  const identity = `cluster-worker-${index}`;
  // Node itself with tsx's loader (not the tsx launcher, which would leave its node child alive on SIGKILL).
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'bench', 'cluster-worker.ts')], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...settings, WORKER_IDENTITY: identity },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const worker: WorkerProcess = {
    identity,
    child,
    peakRss: 0,
    peakCached: 0,
    modelCalls: 0,
    queries: 0,
    failedQueries: 0,
  };
  child.on('message', (stats: WorkerStats) => {
    worker.peakRss = Math.max(worker.peakRss, stats.rss);
    worker.peakCached = Math.max(worker.peakCached, stats.cached);
    worker.modelCalls = stats.modelCalls;
    worker.queries = stats.queries;
    worker.failedQueries = stats.failedQueries;
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve(worker));
    child.once('exit', (code) => reject(new Error(`${identity} exited (${code}) before it was ready`)));
  });
}

/** A counting semaphore. */
function limiter(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free--;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

interface RunRecord {
  readonly workflowId: string;
  readonly startedAt: number;
  doneAt?: number;
  result?: AgentRunResult;
  error?: string;
}

/** What one run's history says about who did its work and what the kill cost it. */
interface RunHistory {
  readonly events: number;
  /** Identity of the worker whose workflow task completed the run. */
  readonly completedBy: string;
  readonly workflowTasks: Map<string, number>;
  readonly activities: Map<string, number>;
  readonly workflowTaskTimeouts: number;
  readonly stickyTimeouts: number;
  /** Activities that needed a second attempt (their first worker died). */
  readonly activityRetries: number;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function readHistory(events: readonly Event[]): RunHistory {
  const workflowTasks = new Map<string, number>();
  const activities = new Map<string, number>();
  let completedBy = '';
  let workflowTaskTimeouts = 0;
  let stickyTimeouts = 0;
  let activityRetries = 0;
  for (const event of events) {
    const type = Number(event.eventType);
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      completedBy = event.workflowTaskCompletedEventAttributes?.identity ?? '?';
      bump(workflowTasks, completedBy);
    } else if (type === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      bump(activities, event.activityTaskStartedEventAttributes?.identity ?? '?');
      if ((event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) activityRetries++;
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) {
      workflowTaskTimeouts++;
      if (Number(event.workflowTaskTimedOutEventAttributes?.timeoutType) === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)
        stickyTimeouts++;
    }
  }
  return {
    events: events.length,
    completedBy,
    workflowTasks,
    activities,
    workflowTaskTimeouts,
    stickyTimeouts,
    activityRetries,
  };
}

async function mapLimited<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const limit = limiter(size);
  return Promise.all(items.map((item) => limit(() => fn(item))));
}

async function externalServer(): Promise<ClusterServer> {
  const connected = await connectFromEnvironment();
  await connected.workerConnection.close(); // the workers connect on their own
  // A server of yours may refuse operator calls (Temporal Cloud): runs go on without the attributes.
  await prepareNamespace(connected.client.connection, connected.namespace).catch((error) =>
    log(`Could not prepare namespace ${connected.namespace}: ${error.message}`),
  );
  return {
    address: connected.address,
    namespace: connected.namespace,
    client: connected.client,
    description: `your Temporal server at ${connected.address}`,
    close: () => connected.client.connection.close(),
  };
}

/** A run's result; a failed read (a loaded server times out long polls) is read again, a failed run is not. */
async function resultOf(run: { result(): Promise<AgentRunResult> }): Promise<AgentRunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run.result();
    } catch (error) {
      if (error instanceof WorkflowFailedError || attempt === 5) throw error;
      log(`Reading a result failed (${(error as Error).message}); reading it again.`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? NaN;
const seconds = (ms: number) => figure(ms / 1000, 1);

async function main(): Promise<void> {
  const server = hasExternalServer() ? await externalServer() : await startClusterServer(log);
  const workers: WorkerProcess[] = [];
  try {
    const bundle = await bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'workflows.ts'));
    const bundlePath = join(PACKAGE_ROOT, '.cache', 'cluster', 'workflow-bundle.js');
    await mkdir(join(PACKAGE_ROOT, '.cache', 'cluster'), { recursive: true });
    await writeFile(bundlePath, bundle.code);
    const taskQueue = `cairn-cluster-${randomUUID().slice(0, 8)}`;
    const settings = {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TASK_QUEUE: taskQueue,
      BUNDLE: bundlePath,
      TURNS: String(TURNS),
      MAX_CACHED_WORKFLOWS: String(CACHE),
    };
    workers.push(...(await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(i + 1, settings)))));
    const victim = workers.at(-1)!;
    log(
      `${WORKERS} workers ready on ${taskQueue} (cache ${CACHE} runs each); starting ${RUNS} runs, ${IN_FLIGHT} in flight at most.`,
    );

    const cairn = new CairnClient({ client: server.client, taskQueue });
    const records: RunRecord[] = [];
    const startLimit = limiter(STARTS_AT_ONCE);
    const began = Date.now();
    let next = 0;
    let completed = 0;
    let expired = false;
    const deadline = new Promise<void>((resolve) =>
      setTimeout(() => {
        expired = true;
        resolve();
      }, DEADLINE_MS).unref(),
    );
    const progress = setInterval(
      () =>
        log(
          `${completed} of ${RUNS} runs completed, ${records.length} started; ${workers.map((w) => `${w.identity} ${(w.peakRss / MiB).toFixed(0)} MiB, ${w.modelCalls} model calls`).join('; ')}`,
        ),
      30_000,
    );

    // IN_FLIGHT lanes, each starting a run and waiting for its result, then the next.
    const lane = async () => {
      while (!expired && next < RUNS) {
        const index = next++;
        const record: RunRecord = { workflowId: `cluster-${index + 1}-${taskQueue.slice(-8)}`, startedAt: Date.now() };
        records.push(record);
        try {
          const run = await startLimit(() =>
            cairn.start({
              agent: benchAgent.name,
              prompt: BENCH_PROMPT,
              model: 'scripted:cluster',
              workflowId: record.workflowId,
            }),
          );
          record.result = await Promise.race([resultOf(run), deadline.then(() => undefined)]);
          if (record.result) record.doneAt = Date.now();
        } catch (error) {
          record.error = (error as Error).message;
        }
        if (record.doneAt === undefined) continue;
        completed++;
        if (victim.killedAt === undefined && completed >= KILL_AT * RUNS) {
          victim.child.kill('SIGKILL');
          victim.killedAt = Date.now();
          log(
            `SIGKILLed ${victim.identity} (pid ${victim.child.pid}) after ${completed} completed runs; nothing restarted.`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    clearInterval(progress);
    const wallMs = Math.max(...records.map((r) => r.doneAt ?? 0)) - began;
    log(`Runs done (${completed} completed); reading histories.`);

    const done = records.filter((r) => r.doneAt !== undefined);
    const histories = await mapLimited(done, 16, async (r) =>
      readHistory((await server.client.workflow.getHandle(r.workflowId).fetchHistory()).events ?? []),
    );
    const sampled = done
      .filter((_, i) => i % Math.max(1, Math.floor(done.length / SIZE_SAMPLE)) === 0)
      .slice(0, SIZE_SAMPLE);
    const sizes = await mapLimited(sampled, 16, async (r) => ({
      record: r,
      bytes: (await server.client.workflow.getHandle(r.workflowId).describe()).historySize ?? NaN,
    }));
    console.log(report({ server, workers, victim, records, done, histories, sizes, wallMs, taskQueue }));
  } finally {
    for (const worker of workers)
      if (worker.child.exitCode === null && worker.killedAt === undefined) worker.child.kill('SIGTERM');
    await Promise.all(
      workers.map((w) =>
        w.child.exitCode === null && w.child.signalCode === null
          ? new Promise((resolve) => w.child.once('exit', resolve))
          : undefined,
      ),
    );
    await server.close();
  }
}

interface Outcome {
  readonly server: ClusterServer;
  readonly workers: readonly WorkerProcess[];
  readonly victim: WorkerProcess;
  readonly records: readonly RunRecord[];
  readonly done: readonly RunRecord[];
  readonly histories: readonly RunHistory[];
  readonly sizes: readonly { record: RunRecord; bytes: number }[];
  readonly wallMs: number;
  readonly taskQueue: string;
}

function report({ server, workers, victim, records, done, histories, sizes, wallMs }: Outcome): string {
  const began = Math.min(...records.map((r) => r.startedAt));
  const asScripted = done.filter((r) => r.result?.reason === null && r.result.toolCalls === TURNS).length;
  const touched = new Set(
    done
      .filter(
        (_, i) => histories[i]!.workflowTasks.has(victim.identity) || histories[i]!.activities.has(victim.identity),
      )
      .map((r) => r.workflowId),
  );
  const sum = (pick: (h: RunHistory) => number) => histories.reduce((total, h) => total + pick(h), 0);
  const count = (identity: string, pick: (h: RunHistory) => Map<string, number>) =>
    histories.reduce((total, h) => total + (pick(h).get(identity) ?? 0), 0);

  const workerRows = workers.map((w) => {
    const aliveMs = (w.killedAt ?? began + wallMs) - began;
    const runs = histories.filter((h) => h.completedBy === w.identity).length;
    const tasks = count(w.identity, (h) => h.workflowTasks);
    const activities = count(w.identity, (h) => h.activities);
    return [
      w.identity + (w === victim ? ' (killed)' : ''),
      seconds(aliveMs),
      figure(runs),
      figure(runs / (aliveMs / 1000), 2),
      figure(tasks),
      figure(activities),
      figure(activities / (aliveMs / 1000), 1),
      figure(w.modelCalls),
      `${figure(w.queries)} (${figure(w.failedQueries)})`,
      figure(w.peakCached),
      figure(w.peakRss / MiB),
    ];
  });
  const latency = (rs: readonly RunRecord[]) => rs.map((r) => r.doneAt! - r.startedAt);
  const latencyRow = (what: string, rs: readonly RunRecord[]) =>
    rs.length === 0
      ? [what, '0', '', '', '']
      : [
          what,
          figure(rs.length),
          seconds(median(latency(rs))),
          seconds(percentile(latency(rs), 0.95)),
          seconds(Math.max(...latency(rs))),
        ];
  const sizeRow = (what: string, rows: readonly { bytes: number }[], events: readonly number[]) =>
    rows.length === 0
      ? [what, '0', '', '', '']
      : [
          what,
          figure(rows.length),
          figure(median(rows.map((s) => s.bytes))),
          figure(Math.max(...rows.map((s) => s.bytes))),
          figure(median(events), 1),
        ];
  const eventsOf = (ids: Set<string>, inside: boolean) =>
    histories.filter((_, i) => ids.has(done[i]!.workflowId) === inside).map((h) => h.events);
  const missing = records.filter((r) => r.doneAt === undefined);
  const killedAfter =
    victim.killedAt === undefined ? 'never (too few runs)' : `${seconds(victim.killedAt - began)} s in`;

  return [
    `Scale out (issue #18): Node ${process.version}, ${cpus().length} cores, ${server.description}.`,
    `${workers.length} worker processes on one task queue, each caching up to ${CACHE} runs; ${RUNS} agentRun runs of ${TURNS} fetch_record turns (scripted model, 1 KB results), at most ${IN_FLIGHT} in flight, started through CairnClient.`,
    `${victim.identity} SIGKILLed ${killedAfter}, at ${Math.round(KILL_AT * 100)} % of the runs completed; nothing restarted.`,
    '',
    `runs completed: ${figure(done.length)} of ${figure(records.length)} started (${figure(RUNS)} asked), ${figure(asScripted)} as scripted (${TURNS} tool calls, then the answer)`,
    `wall time: ${seconds(wallMs)} s, first start to last result; ${figure(done.length / (wallMs / 1000), 2)} runs/s`,
    `workflow task timeouts: ${figure(sum((h) => h.workflowTaskTimeouts))} (${figure(sum((h) => h.stickyTimeouts))} on a sticky queue, schedule-to-start) in ${figure(histories.filter((h) => h.workflowTaskTimeouts > 0).length)} runs; activity retries: ${figure(sum((h) => h.activityRetries))}`,
    ...(missing.length > 0
      ? [
          `MISSING: ${missing.length} runs did not complete before the deadline or failed, e.g. ${missing
            .slice(0, 5)
            .map((r) => `${r.workflowId}${r.error ? ` (${r.error})` : ''}`)
            .join(', ')}`,
        ]
      : []),
    '',
    "Per worker (from the runs' histories: the identity on each WorkflowTaskCompleted and ActivityTaskStarted; a run is counted for the worker whose workflow task completed it):",
    "Model calls and transcript Queries as each worker counted them (a killed worker's as of its last report, at most a second before).",
    table(
      [
        'worker',
        'alive s',
        'runs completed',
        'runs/s',
        'workflow tasks',
        'activities',
        'activities/s',
        'model calls',
        'transcript Queries (failed)',
        'peak cached runs',
        'peak RSS MiB',
      ],
      workerRows,
    ),
    '',
    `Latency, start request to result (runs that ${victim.identity} worked on wait out its timeouts):`,
    table(
      ['runs', 'count', 'median s', 'p95 s', 'max s'],
      [
        latencyRow('all', done),
        latencyRow(
          `touched by ${victim.identity}`,
          done.filter((r) => touched.has(r.workflowId)),
        ),
        latencyRow(
          'untouched',
          done.filter((r) => !touched.has(r.workflowId)),
        ),
      ],
    ),
    '',
    `History per run: bytes as the server counts them (describe().historySize) for ${sizes.length} runs spread over all of them; events for every run.`,
    table(
      ['runs', 'sampled', 'median bytes', 'max bytes', 'median events'],
      [
        sizeRow(
          'all',
          sizes,
          histories.map((h) => h.events),
        ),
        sizeRow(
          `touched by ${victim.identity}`,
          sizes.filter((s) => touched.has(s.record.workflowId)),
          eventsOf(touched, true),
        ),
        sizeRow(
          'untouched',
          sizes.filter((s) => !touched.has(s.record.workflowId)),
          eventsOf(touched, false),
        ),
      ],
    ),
  ].join('\n');
}

await main();
