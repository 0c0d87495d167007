/**
 * Issue #40, a fleet on a real cluster: Cairn on a real Temporal server with several worker
 * processes sharing a run store, one SIGKILLed mid-load and a second build deployed through Worker
 * Deployment Versioning later, against the plain Temporal loop on the same cluster at the same time.
 * Starts the server as docker-compose.yml describes it (bench/cluster-server.ts: built with Go, on
 * PostgreSQL) unless TEMPORAL_ADDRESS names one; the run store is that PostgreSQL (or CAIRN_RUN_STORE).
 * Starts WORKERS worker processes of build 1 (bench/cluster-worker.ts) as versions of one Worker
 * Deployment, runs pinned; pushes RUNS agentRun runs of TURNS tool turns through them, IN_FLIGHT at a
 * time, and a quarter as many lanes of the plain loop (bench/plain-agent-loop.ts) beside them on the
 * same workers (their throughput per lane is the comparison); SIGKILLs the last worker once a third of the agentRun runs completed and
 * restarts nothing; at two thirds starts NEW_WORKERS workers of build 2 (a changed prompt:
 * bench/cluster-v2-workflows.ts) and makes it the deployment's current version. Waits for every
 * run, reads every history, prints runs completed as their build scripts them, throughput against
 * the plain loop, workflow-task timeouts and nondeterminism errors, transcript Queries, and writes
 * a chart of completions over time. Not part of `npm test` or `npm run bench`:
 *
 *   npm run bench:cluster -- [--runs 10000] [--workers 3] [--new-workers 2] [--turns 3]
 *     [--in-flight 48] [--baseline-lanes <in-flight / 4>] [--baseline query|input] [--kill-at 0.33] [--deploy-at 0.67]
 *     [--cache <runs>] [--workflow-task-slots 10] [--activity-slots 100] [--workflow-pollers 4]
 *     [--sticky-timeout 20s] [--chart .cache/cluster/completions.svg] [--deadline-minutes 150]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import protos, { type temporal } from '@temporalio/proto';
import pg from 'pg';
import { CairnClient } from '../client/cairn-client.js';
import { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import type { AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { completionsChart } from './cluster-chart.js';
import { prepareNamespace, startClusterServer, until, type ClusterServer } from './cluster-server.js';
import type { WorkerStats } from './cluster-worker.js';
import type { PlainAgentLoopInput, PlainAgentLoopResult } from './plain-agent-loop.js';
import { stopChildren } from './stop-children.js';
import { figure, median, table } from './report.js';
import { limiter } from './limiter.js';
import { benchFlags } from './bench-flags.js';

const { EventType, TimeoutType, WorkflowTaskFailedCause } = protos.temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;
const MiB = 1024 * 1024;

const USAGE = `Usage: npm run bench:cluster -- [options]

A fleet on a real cluster (docs/bench.md): WORKERS workers of build 1, one SIGKILLed at --kill-at,
build 2 deployed at --deploy-at, against the plain Temporal loop on the same workers. Starts the
server of docker-compose.yml unless TEMPORAL_ADDRESS names one; the run store is its PostgreSQL
(or CAIRN_RUN_STORE).

Options:
  --runs <n>                 agentRun runs (default 10000)
  --workers <n>              workers of build 1, at least 2: one is killed (default 3)
  --new-workers <n>          workers of build 2 (default 2)
  --turns <n>                tool turns per run (default 3)
  --in-flight <n>            runs open at a time (default 48)
  --baseline-lanes <n>       lanes of the plain loop (default: in-flight / 4)
  --baseline query|input     how the plain loop's model gets the transcript (default query)
  --kill-at <fraction>       completed share at which a worker is SIGKILLed (default 0.33)
  --deploy-at <fraction>     completed share at which build 2 becomes current (default 0.67)
  --cache <runs>             each worker's workflow cache (default: sized for the survivors)
  --workflow-task-slots <n>  (default 10)
  --activity-slots <n>       (default 100)
  --workflow-pollers <n>     (default 4)
  --sticky-timeout <d>       (default 20s)
  --chart <file>             the completions chart (default .cache/cluster/completions.svg)
  --deadline-minutes <n>     give up after (default 150)
  -h, --help                 show this help`;

const flags = benchFlags('bench/cluster.ts', USAGE, {
  runs: { type: 'string', default: '10000' },
  workers: { type: 'string', default: '3' },
  'new-workers': { type: 'string', default: '2' },
  turns: { type: 'string', default: '3' },
  'in-flight': { type: 'string', default: '48' },
  'baseline-lanes': { type: 'string' },
  baseline: { type: 'string', default: 'query' },
  cache: { type: 'string' },
  'kill-at': { type: 'string', default: '0.33' },
  'deploy-at': { type: 'string', default: '0.67' },
  'workflow-task-slots': { type: 'string', default: '10' },
  'activity-slots': { type: 'string', default: '100' },
  'workflow-pollers': { type: 'string', default: '4' },
  'sticky-timeout': { type: 'string', default: '20s' },
  chart: { type: 'string', default: '.cache/cluster/completions.svg' },
  'deadline-minutes': { type: 'string', default: '150' },
});
const RUNS = Number(flags.runs);
const WORKERS = Number(flags.workers);
const NEW_WORKERS = Number(flags['new-workers']);
const TURNS = Number(flags.turns);
const IN_FLIGHT = Math.min(Number(flags['in-flight']), RUNS);
// A quarter as many lanes: the plain loop's throughput per lane, under the same load, is the comparison.
const BASELINE_LANES = Number(flags['baseline-lanes'] ?? Math.ceil(IN_FLIGHT / 4));
const ALL_LANES = IN_FLIGHT + BASELINE_LANES;
/** How the plain loop's model activity gets the transcript: a Query (history linear in turns), or its input (quadratic). */
const BASELINE = flags.baseline as PlainAgentLoopInput['transcript'];
// Sized for the survivors: once a worker dies, the others hold every run in flight.
const CACHE = Number(flags.cache ?? Math.ceil(ALL_LANES / Math.max(WORKERS - 1, 1)) + 50);
const KILL_AT = Number(flags['kill-at']);
const DEPLOY_AT = Number(flags['deploy-at']);
const DEADLINE_MS = Number(flags['deadline-minutes']) * 60_000;
const SIZING = {
  WORKFLOW_TASK_SLOTS: flags['workflow-task-slots']!,
  ACTIVITY_SLOTS: flags['activity-slots']!,
  WORKFLOW_POLLERS: flags['workflow-pollers']!,
  STICKY_TIMEOUT: flags['sticky-timeout']!,
};
if (
  ![RUNS, WORKERS, NEW_WORKERS, TURNS, IN_FLIGHT, CACHE, DEADLINE_MS].every((n) => Number.isInteger(n) && n > 0) ||
  !(Number.isInteger(BASELINE_LANES) && BASELINE_LANES >= 1) ||
  !['query', 'input'].includes(BASELINE) ||
  !(KILL_AT > 0 && KILL_AT < DEPLOY_AT && DEPLOY_AT < 1) ||
  WORKERS < 2
) {
  console.error(
    'bench/cluster.ts: --runs, --workers (at least 2: one is killed), --new-workers, --turns, --in-flight, --cache, --deadline-minutes are positive integers, --baseline-lanes a whole number, 0 < --kill-at < --deploy-at < 1.',
  );
  process.exit(2);
}
/** Start requests at once: a burst of hundreds times out on a loaded server. */
const STARTS_AT_ONCE = 20;
/** Runs whose history bytes are read (describe()), spread evenly over all of them. */
const SIZE_SAMPLE = 100;
const DEPLOYMENT = 'cairn-bench';
const BUILDS = ['bench-1', 'bench-2'] as const;

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

interface WorkerProcess {
  readonly identity: string;
  readonly build: (typeof BUILDS)[number];
  readonly child: ChildProcess;
  readonly startedAt: number;
  peakRss: number;
  peakCached: number;
  modelCalls: number;
  queries: number;
  failedQueries: number;
  baselineQueries: number;
  killedAt?: number;
}

function startWorker(
  index: number,
  build: WorkerProcess['build'],
  settings: Record<string, string>,
): Promise<WorkerProcess> {
  const identity = `cluster-worker-${index}@${build}`;
  // Node itself with tsx's loader (not the tsx launcher, which would leave its node child alive on SIGKILL).
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'bench', 'cluster-worker.ts')], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...settings, WORKER_IDENTITY: identity, BUILD_ID: build },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const worker: WorkerProcess = {
    identity,
    build,
    child,
    startedAt: Date.now(),
    peakRss: 0,
    peakCached: 0,
    modelCalls: 0,
    queries: 0,
    failedQueries: 0,
    baselineQueries: 0,
  };
  child.on('message', (stats: WorkerStats) => {
    worker.peakRss = Math.max(worker.peakRss, stats.rss);
    worker.peakCached = Math.max(worker.peakCached, stats.cached);
    worker.modelCalls = stats.modelCalls;
    worker.queries = stats.queries;
    worker.failedQueries = stats.failedQueries;
    worker.baselineQueries = stats.baselineQueries;
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve(worker));
    child.once('exit', (code) => reject(new Error(`${identity} exited (${code}) before it was ready`)));
  });
}

/** Makes `build` the deployment's current version, once its workers have polled (the server then knows it). */
async function promote(client: Client, namespace: string, build: string): Promise<void> {
  await until(`${DEPLOYMENT}:${build} current`, 120_000, () =>
    client.workflowService.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName: DEPLOYMENT,
      buildId: build,
      identity: 'bench/cluster.ts',
    }),
  );
}

type Kind = 'cairn' | 'plain';

interface RunRecord {
  readonly kind: Kind;
  readonly workflowId: string;
  readonly startedAt: number;
  doneAt?: number;
  /** The build the answer says ran it (agentRun: "v2: …" is build 2), or whether it made its calls (plain). */
  asScripted?: boolean;
  build?: WorkerProcess['build'];
  error?: string;
}

/** What one run's history says about who did its work and what the kill cost it. */
interface RunHistory {
  readonly events: number;
  /** Identity of the worker whose workflow task completed the run. */
  readonly completedBy: string;
  /** Every worker that took one of its workflow tasks (a killed one took some it never completed). */
  readonly takenBy: ReadonlySet<string>;
  readonly workflowTasks: Map<string, number>;
  readonly activities: Map<string, number>;
  readonly workflowTaskTimeouts: number;
  readonly stickyTimeouts: number;
  readonly nondeterminism: number;
  readonly workflowTaskFailures: number;
  /** Activities that needed a second attempt (their first worker died). */
  readonly activityRetries: number;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function readHistory(events: readonly Event[]): RunHistory {
  const workflowTasks = new Map<string, number>();
  const activities = new Map<string, number>();
  const takenBy = new Set<string>();
  let completedBy = '';
  let workflowTaskTimeouts = 0;
  let stickyTimeouts = 0;
  let nondeterminism = 0;
  let workflowTaskFailures = 0;
  let activityRetries = 0;
  for (const event of events) {
    const type = Number(event.eventType);
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
      takenBy.add(event.workflowTaskStartedEventAttributes?.identity ?? '?');
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      completedBy = event.workflowTaskCompletedEventAttributes?.identity ?? '?';
      bump(workflowTasks, completedBy);
    } else if (type === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      bump(activities, event.activityTaskStartedEventAttributes?.identity ?? '?');
      if ((event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) activityRetries++;
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) {
      workflowTaskTimeouts++;
      if (Number(event.workflowTaskTimedOutEventAttributes?.timeoutType) === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)
        stickyTimeouts++;
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
      workflowTaskFailures++;
      if (
        Number(event.workflowTaskFailedEventAttributes?.cause) ===
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR
      )
        nondeterminism++;
    }
  }
  return {
    events: events.length,
    completedBy,
    takenBy,
    workflowTasks,
    activities,
    workflowTaskTimeouts,
    stickyTimeouts,
    nondeterminism,
    workflowTaskFailures,
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
    // Every worker of this bench runs on this machine, so a directory reaches them all: no model turn
    // Queries even where no database is at hand.
    storeUrl: pathToFileURL(FILE_STORE).href,
    close: () => connected.client.connection.close(),
  };
}

/** A run's result; a failed read (a loaded server times out long polls) is read again, a failed run is not. */
async function resultOf<T>(run: { result(): Promise<T> }): Promise<T> {
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

/** The run store the bench makes for a server of yours. */
const FILE_STORE = join(PACKAGE_ROOT, '.cache', 'cluster', 'run-store');

/** The run store this bench made, emptied: what an earlier bench left is not this run's. */
async function emptyStore(url: string | undefined): Promise<void> {
  if (!url) return;
  if (url.startsWith('file:')) return rm(FILE_STORE, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP TABLE IF EXISTS cairn_run_store');
  } finally {
    await client.end();
  }
}

function storeKind(url: string | undefined): string {
  if (!url) return 'none';
  if (url === pathToFileURL(FILE_STORE).href) return 'a directory on this machine (.cache/cluster/run-store)';
  return url.startsWith('file:') ? 'a directory' : url.startsWith('redis') ? 'Redis' : 'PostgreSQL';
}

async function bundleTo(entry: string, name: string): Promise<string> {
  const bundle = await bundleWorkflows(join(PACKAGE_ROOT, 'bench', entry));
  const path = join(PACKAGE_ROOT, '.cache', 'cluster', name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bundle.code);
  return path;
}

interface Moments {
  began: number;
  cairnEnd: number;
  deployedAt?: number;
  deployError?: string;
  loads: number[];
}

async function main(): Promise<void> {
  const made = hasExternalServer() ? await externalServer() : await startClusterServer(log);
  // A store CAIRN_RUN_STORE names is the fleet's: used, and left as it is (keys are per run).
  const fleetStore = process.env.CAIRN_RUN_STORE;
  const server = fleetStore === undefined ? made : { ...made, storeUrl: fleetStore };
  const workers: WorkerProcess[] = [];
  try {
    const bundles = [
      await bundleTo('workflows.ts', 'build-1.js'),
      await bundleTo('cluster-v2-workflows.ts', 'build-2.js'),
    ];
    const taskQueue = `cairn-cluster-${randomUUID().slice(0, 8)}`;
    if (fleetStore === undefined) await emptyStore(made.storeUrl);
    const settings = (build: 0 | 1) => ({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TASK_QUEUE: taskQueue,
      BUNDLE: bundles[build]!,
      TURNS: String(TURNS),
      MAX_CACHED_WORKFLOWS: String(CACHE),
      DEPLOYMENT_NAME: DEPLOYMENT,
      ...(server.storeUrl && { CAIRN_RUN_STORE: server.storeUrl }),
      ...SIZING,
    });
    workers.push(
      ...(await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(i + 1, BUILDS[0], settings(0))))),
    );
    await promote(server.client, server.namespace, BUILDS[0]);
    const victim = workers.at(-1)!;
    log(
      `${WORKERS} workers of ${DEPLOYMENT}:${BUILDS[0]} ready on ${taskQueue} (cache ${CACHE} runs each, run store: ${storeKind(server.storeUrl)}); starting ${RUNS} agentRun runs (${IN_FLIGHT} in flight) beside ${BASELINE_LANES} lanes of the plain loop.`,
    );

    const cairn = new CairnClient({ client: server.client, taskQueue });
    const records: RunRecord[] = [];
    const startLimit = limiter(STARTS_AT_ONCE);
    const moments: Moments = { began: Date.now(), cairnEnd: 0, loads: [] };
    let next = 0;
    let completed = 0;
    let expired = false;
    let deploying: Promise<void> | undefined;
    const deadline = new Promise<void>((resolve) =>
      setTimeout(() => {
        expired = true;
        resolve();
      }, DEADLINE_MS).unref(),
    );
    const progress = setInterval(() => {
      moments.loads.push(loadavg()[0]!);
      log(
        `${completed} of ${RUNS} agentRun runs completed, ${records.filter((r) => r.kind === 'plain' && r.doneAt).length} plain loops; load ${loadavg()[0]!.toFixed(1)}; ${workers.map((w) => `${w.identity} ${(w.peakRss / MiB).toFixed(0)} MiB, ${w.modelCalls} model calls, ${w.queries} Queries`).join('; ')}`,
      );
    }, 30_000);

    const deploy = async () => {
      const first = workers.length + 1;
      const started = await Promise.all(
        Array.from({ length: NEW_WORKERS }, (_, i) => startWorker(first + i, BUILDS[1], settings(1))),
      );
      workers.push(...started);
      await promote(server.client, server.namespace, BUILDS[1]);
      moments.deployedAt = Date.now();
      log(`${DEPLOYMENT}:${BUILDS[1]} is current (${NEW_WORKERS} workers); runs pinned to ${BUILDS[0]} stay there.`);
    };
    const completedOne = () => {
      completed++;
      if (victim.killedAt === undefined && completed >= KILL_AT * RUNS) {
        victim.child.kill('SIGKILL');
        victim.killedAt = Date.now();
        log(
          `SIGKILLed ${victim.identity} (pid ${victim.child.pid}) after ${completed} completed runs; nothing restarted.`,
        );
      }
      // A deploy that fails is reported, not a crash that loses the run's report and leaves the fleet up.
      if (!deploying && completed >= DEPLOY_AT * RUNS)
        deploying = deploy().catch((error: unknown) => {
          moments.deployError = (error as Error).message;
          log(`The deploy failed: ${moments.deployError}`);
        });
    };

    const cairnLane = async () => {
      while (!expired && next < RUNS) {
        const index = next++;
        const record: RunRecord = {
          kind: 'cairn',
          workflowId: `cluster-${index + 1}-${taskQueue.slice(-8)}`,
          startedAt: Date.now(),
        };
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
          const result = await Promise.race([resultOf<AgentRunResult>(run), deadline.then(() => undefined)]);
          if (!result) continue;
          record.doneAt = Date.now();
          record.build = result.answer.startsWith('v2: ') ? BUILDS[1] : BUILDS[0];
          record.asScripted = result.outcome?.status === 'answered' && result.toolCalls === TURNS;
          completedOne();
        } catch (error) {
          record.error = (error as Error).message;
        }
      }
    };
    let plainNext = 0;
    const plainLane = async () => {
      while (!expired && next < RUNS) {
        const record: RunRecord = {
          kind: 'plain',
          workflowId: `plain-${++plainNext}-${taskQueue.slice(-8)}`,
          startedAt: Date.now(),
        };
        records.push(record);
        try {
          const run = await startLimit(() =>
            server.client.workflow.start<(input: PlainAgentLoopInput) => Promise<PlainAgentLoopResult>>(
              'plainAgentLoop',
              {
                taskQueue,
                workflowId: record.workflowId,
                args: [{ model: 'scripted:cluster', transcript: BASELINE }],
              },
            ),
          );
          const result = await Promise.race([resultOf(run), deadline.then(() => undefined)]);
          if (!result) continue;
          record.doneAt = Date.now();
          record.asScripted = result.toolCalls === TURNS;
        } catch (error) {
          record.error = (error as Error).message;
        }
      }
    };
    await Promise.all([
      ...Array.from({ length: IN_FLIGHT }, cairnLane),
      ...Array.from({ length: BASELINE_LANES }, plainLane),
    ]);
    await deploying;
    clearInterval(progress);
    moments.cairnEnd = Math.max(...records.filter((r) => r.kind === 'cairn').map((r) => r.doneAt ?? 0));
    log(`Runs done (${completed} agentRun runs completed); reading histories.`);

    const done = records.filter((r) => r.doneAt !== undefined);
    const histories = await mapLimited(done, 16, async (r) =>
      readHistory((await server.client.workflow.getHandle(r.workflowId).fetchHistory()).events ?? []),
    );
    // The runs that did not complete: a run stuck on a nondeterminism error is exactly what the
    // counts below exist to catch (a start that failed has no history).
    const unfinished = (
      await mapLimited(
        records.filter((r) => r.doneAt === undefined),
        16,
        async (r) =>
          server.client.workflow
            .getHandle(r.workflowId)
            .fetchHistory()
            .then(
              (history) => ({ r, h: readHistory(history.events ?? []) }),
              () => undefined,
            ),
      )
    ).filter((x) => x !== undefined);
    const sampled = done
      .filter((r) => r.kind === 'cairn')
      .filter((_, i) => i % Math.max(1, Math.floor(done.length / SIZE_SAMPLE)) === 0)
      .slice(0, SIZE_SAMPLE);
    const sizes = await mapLimited(sampled, 16, async (r) => ({
      record: r,
      bytes: (await server.client.workflow.getHandle(r.workflowId).describe()).historySize ?? NaN,
    }));
    // What the report reads, kept beside the chart (a report that fails can be made again from it).
    await writeFile(
      join(PACKAGE_ROOT, '.cache', 'cluster', 'runs.json'),
      JSON.stringify({
        moments,
        records,
        histories: histories.map((h) => ({
          ...h,
          takenBy: [...h.takenBy],
          workflowTasks: [...h.workflowTasks],
          activities: [...h.activities],
        })),
      }),
    );
    const chartPath = join(PACKAGE_ROOT, flags.chart!);
    await mkdir(dirname(chartPath), { recursive: true });
    await writeFile(chartPath, chart(records, moments, victim));
    console.log(report({ server, workers, victim, records, done, histories, unfinished, sizes, moments, chartPath }));
  } finally {
    const killed = new Set(workers.filter((w) => w.killedAt !== undefined).map((w) => w.child));
    await stopChildren(
      workers.map((w) => w.child),
      (child) => killed.has(child),
    );
    await server.close();
  }
}

function chart(records: readonly RunRecord[], moments: Moments, victim: WorkerProcess): string {
  const doneAt = (kind: Kind) =>
    records
      .filter((r) => r.kind === kind && r.doneAt !== undefined && r.doneAt <= moments.cairnEnd)
      .map((r) => r.doneAt! - moments.began);
  return completionsChart(
    `${RUNS} agentRun runs of ${TURNS} tool turns beside the plain Temporal loop, ${WORKERS} workers on PostgreSQL`,
    [
      { name: 'Cairn agentRun', color: '#1f6feb', doneAtMs: doneAt('cairn') },
      {
        name: `plain loop, ×${figure(IN_FLIGHT / BASELINE_LANES, 1)} (as many lanes)`,
        color: '#d97706',
        doneAtMs: doneAt('plain'),
        scale: IN_FLIGHT / BASELINE_LANES,
      },
    ],
    [
      ...(victim.killedAt ? [{ label: `${victim.identity} SIGKILLed`, atMs: victim.killedAt - moments.began }] : []),
      ...(moments.deployedAt ? [{ label: `${BUILDS[1]} current`, atMs: moments.deployedAt - moments.began }] : []),
    ],
  );
}

interface Outcome {
  readonly server: ClusterServer;
  readonly workers: readonly WorkerProcess[];
  readonly victim: WorkerProcess;
  readonly records: readonly RunRecord[];
  readonly done: readonly RunRecord[];
  readonly histories: readonly RunHistory[];
  /** The runs that started and did not complete, with their histories. */
  readonly unfinished: readonly { readonly r: RunRecord; readonly h: RunHistory }[];
  readonly sizes: readonly { record: RunRecord; bytes: number }[];
  readonly moments: Moments;
  readonly chartPath: string;
}

function report({
  server,
  workers,
  victim,
  records,
  done,
  histories,
  unfinished,
  sizes,
  moments,
  chartPath,
}: Outcome): string {
  const { began, cairnEnd } = moments;
  const windowS = (cairnEnd - began) / 1000;
  const of = (kind: Kind) => done.map((r, i) => ({ r, h: histories[i]! })).filter(({ r }) => r.kind === kind);
  const cairnRuns = of('cairn');
  const plainRuns = of('plain');
  const inWindow = (runs: typeof cairnRuns) => runs.filter(({ r }) => r.doneAt! <= cairnEnd).length;
  const cairnRate = inWindow(cairnRuns) / windowS;
  const plainRate = inWindow(plainRuns) / windowS;
  const ratio = cairnRate / IN_FLIGHT / (plainRate / BASELINE_LANES);
  // Which build ran a run: the builds of the workers whose workflow tasks completed it (a pinned run has one).
  const buildsOf = (h: RunHistory) => new Set([...h.workflowTasks.keys()].map((id) => id.split('@')[1]));
  const moved = cairnRuns.filter(({ h }) => buildsOf(h).size > 1).length;
  const asItsBuild = cairnRuns.filter(
    ({ r, h }) => r.asScripted && buildsOf(h).size === 1 && buildsOf(h).has(r.build),
  ).length;
  // The runs the kill could cost something: not done before it, with a task the victim took (a
  // run started just after the kill can be handed to its dead poll), or open at the kill with an
  // activity retried (history names only an activity's last attempt's worker).
  const killedAt = victim.killedAt ?? Number.POSITIVE_INFINITY;
  const touched = ({ r, h }: { r: RunRecord; h: RunHistory }) =>
    (r.doneAt ?? Number.POSITIVE_INFINITY) >= killedAt &&
    (h.takenBy.has(victim.identity) ||
      h.activities.has(victim.identity) ||
      (r.startedAt <= killedAt && h.activityRetries > 0));
  const sum = (runs: typeof cairnRuns, pick: (h: RunHistory) => number) => runs.reduce((t, { h }) => t + pick(h), 0);
  const timeoutsOf = (runs: typeof cairnRuns) =>
    `${figure(sum(runs, (h) => h.workflowTaskTimeouts))} (${figure(sum(runs, (h) => h.stickyTimeouts))} sticky) in ${figure(runs.filter(({ h }) => h.workflowTaskTimeouts > 0).length)} runs`;
  const count = (identity: string, pick: (h: RunHistory) => Map<string, number>) =>
    histories.reduce((total, h) => total + (pick(h).get(identity) ?? 0), 0);
  const workerRows = workers.map((w) => {
    const aliveMs = (w.killedAt ?? cairnEnd) - Math.max(w.startedAt, began);
    const runs = histories.filter((h) => h.completedBy === w.identity).length;
    return [
      w.identity + (w === victim ? ' (killed)' : ''),
      seconds(aliveMs),
      figure(runs),
      figure(count(w.identity, (h) => h.workflowTasks)),
      figure(count(w.identity, (h) => h.activities)),
      figure(w.modelCalls),
      `${figure(w.queries)} (${figure(w.failedQueries)})`,
      figure(w.peakCached),
      figure(w.peakRss / MiB),
    ];
  });
  const latency = (runs: typeof cairnRuns) => runs.map(({ r }) => r.doneAt! - r.startedAt);
  const latencyRow = (what: string, runs: typeof cairnRuns) =>
    runs.length === 0
      ? [what, '0', '', '', '']
      : [
          what,
          figure(runs.length),
          seconds(median(latency(runs))),
          seconds(percentile(latency(runs), 0.95)),
          seconds(Math.max(...latency(runs))),
        ];
  const missing = records.filter((r) => r.doneAt === undefined && r.kind === 'cairn');
  const at = (ms: number | undefined) => (ms === undefined ? 'never' : `${seconds(ms - began)} s in`);
  const loads = moments.loads.length > 0 ? moments.loads : [loadavg()[0]!];
  return [
    `A fleet on a real cluster (issue #40): Node ${process.version}, ${cpus().length} cores, ${server.description}; load average (1 min) ${figure(Math.min(...loads), 1)}–${figure(Math.max(...loads), 1)} over the run, median ${figure(median(loads), 1)}.`,
    `${WORKERS} worker processes of ${DEPLOYMENT}:${BUILDS[0]} (Worker Deployment Versioning, runs pinned), caching up to ${CACHE} runs each, sizing ${Object.entries(
      SIZING,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}; run store: ${storeKind(server.storeUrl)}.`,
    `${RUNS} agentRun runs of ${TURNS} fetch_record turns (scripted model, 1 KB results), ${IN_FLIGHT} in flight, beside ${BASELINE_LANES} lanes of the plain Temporal loop (the same activities; ${BASELINE === 'query' ? 'the model activity Queries the run for the transcript, as a loop that keeps history linear must' : "the transcript as the model activity's input, history quadratic"}) on the same workers.`,
    `${victim.identity} SIGKILLed ${at(victim.killedAt)} (at ${Math.round(KILL_AT * 100)} % of the agentRun runs), not restarted; ${NEW_WORKERS} workers of ${BUILDS[1]} (a changed prompt) started and made current ${at(moments.deployedAt)} (at ${Math.round(DEPLOY_AT * 100)} %)${moments.deployError ? `; THE DEPLOY FAILED: ${moments.deployError}` : ''}.`,
    '',
    `agentRun runs completed: ${figure(cairnRuns.length)} of ${figure(RUNS)}; as their build scripts them: ${figure(asItsBuild)} (${figure(cairnRuns.filter(({ r }) => r.build === BUILDS[1]).length)} on ${BUILDS[1]}); runs that moved between builds: ${figure(moved)}`,
    `nondeterminism errors: ${figure(sum([...cairnRuns, ...plainRuns, ...unfinished], (h) => h.nondeterminism))}; workflow task failures: ${figure(sum([...cairnRuns, ...plainRuns, ...unfinished], (h) => h.workflowTaskFailures))}${unfinished.length > 0 ? ` (${figure(unfinished.length)} runs that did not complete included)` : ''}`,
    `agentRun transcript Queries: ${figure(workers.reduce((t, w) => t + w.queries, 0))} (${figure(workers.reduce((t, w) => t + w.failedQueries, 0))} failed); the plain loop's: ${figure(workers.reduce((t, w) => t + w.baselineQueries, 0))}; model calls, both: ${figure(workers.reduce((t, w) => t + w.modelCalls, 0))}`,
    `workflow task timeouts, agentRun: ${timeoutsOf(cairnRuns.filter(touched))} touched by the killed worker (not done before the kill), ${timeoutsOf(cairnRuns.filter((x) => !touched(x)))} untouched; plain loop: ${timeoutsOf(plainRuns.filter(touched))} touched, ${timeoutsOf(plainRuns.filter((x) => !touched(x)))} untouched`,
    `throughput, first start to the last agentRun result (${seconds(cairnEnd - began)} s): agentRun ${figure(cairnRate, 2)} runs/s on ${IN_FLIGHT} lanes, plain loop ${figure(plainRate, 2)} runs/s on ${BASELINE_LANES}; per lane ${figure(ratio, 2)}×`,
    ...(missing.length > 0
      ? [
          `MISSING: ${missing.length} agentRun runs did not complete, e.g. ${missing
            .slice(0, 5)
            .map((r) => `${r.workflowId}${r.error ? ` (${r.error})` : ''}`)
            .join(', ')}`,
        ]
      : []),
    `chart: ${chartPath}`,
    '',
    "Per worker (from the runs' histories; model calls and transcript Queries as each worker counted them):",
    table(
      [
        'worker',
        'alive s',
        'runs completed',
        'workflow tasks',
        'activities',
        'model calls',
        'transcript Queries (failed)',
        'peak cached runs',
        'peak RSS MiB',
      ],
      workerRows,
    ),
    '',
    'Latency, start request to result:',
    table(
      ['runs', 'count', 'median s', 'p95 s', 'max s'],
      [
        latencyRow('agentRun, all', cairnRuns),
        latencyRow(`agentRun, touched by ${victim.identity}`, cairnRuns.filter(touched)),
        latencyRow(
          `agentRun on ${BUILDS[1]}`,
          cairnRuns.filter(({ r }) => r.build === BUILDS[1]),
        ),
        latencyRow('plain loop, all', plainRuns),
      ],
    ),
    '',
    `History per agentRun run (describe().historySize, ${sizes.length} runs spread over all): median ${figure(median(sizes.map((s) => s.bytes)))} bytes, max ${figure(Math.max(...sizes.map((s) => s.bytes)))}; median events ${figure(median(cairnRuns.map(({ h }) => h.events)), 1)}.`,
  ].join('\n');
}

await main();
