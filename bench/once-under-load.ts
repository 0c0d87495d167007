/**
 * Issue 50, "a busy worker sends runs to a person although the tool never ran", tried from outside:
 * WORKERS worker processes (bench/once-under-load-worker.ts, the documented sizing) share a
 * PostgreSQL run store; RUNS runs, IN_FLIGHT at a time, each make 2 `sideEffects: 'once'` calls
 * whose `execute` records its idempotency key in a PostgreSQL table (nothing dedupes). With --kill
 * one worker is SIGKILLed once a third of the runs completed, and started again. A run that asks a
 * person is answered by the bench (so it ends) and counted. Then every history is read and the
 * table compared with it: runs that waited on a person, attempts that timed out without the fence's
 * began mark (shared/tools/once-fence.ts) and ran again, duplicate effects, and executes that began
 * in an attempt the run counted as never begun. Each question is printed with the events around its
 * timeout. Runs on the embedded dev server unless TEMPORAL_ADDRESS names one. Not part of `npm run
 * bench`; load the machine yourself (issue 50 saw load 17–31), e.g. `stress-ng --cpu 4`:
 *
 *   npm run bench:once -- [--runs 300] [--workers 3] [--in-flight 60] [--kill] [--reconcile]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import protos, { type temporal } from '@temporalio/proto';
import pg from 'pg';
import { CairnClient } from '../client/cairn-client.js';
import { connectFromEnvironment, hasExternalServer, type Connected } from '../runtime/connection.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { ONCE_BEGAN, RUN_ONCE_TOOL } from '../shared/tools/once-fence.js';
import { answerClarificationUpdate, WAITING_MEMO, type WaitingSummary } from '../workflows/contract/index.js';
import { ENTRIES, onceAgent, onceReconciledAgent } from './once-under-load-agent.js';
import { figure, median } from './report.js';
import { limiter } from './limiter.js';
import { benchFlags } from './bench-flags.js';
import { stopChildren } from './stop-children.js';

const { EventType, TimeoutType } = protos.temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;

const USAGE = `Usage: npm run bench:once -- [options]

Issue 50 from outside: WORKERS worker processes on a shared PostgreSQL run store, RUNS runs of
${ENTRIES.length} sideEffects: 'once' calls each; counts runs that asked a person "did it?", attempts that
timed out before execute began and ran again, duplicate effects and executes that never began.
Load the machine yourself (e.g. stress-ng --cpu 4). Embedded dev server unless TEMPORAL_ADDRESS is set.

Options:
  --runs <n>              runs (default 300)
  --workers <n>           worker processes (default 3)
  --in-flight <n>         runs open at a time (default 60: the documented 16 per core on 3 workers)
  --kill                  SIGKILL the last worker once a third of the runs completed, and start it again
  --kill-at <fraction>    completed share at which --kill strikes (default 0.33)
  --reconcile             the tool has a reconcile (default: none, as in issue 50's trial)
  --effect-ms <n>         execute works up to this long before its effect (default 100)
  --store <url>           the run store (default CAIRN_RUN_STORE, else postgres://postgres@127.0.0.1:5432/postgres)
  --effects <url>         the PostgreSQL of the effects table (default the same as a postgres store)
  --deadline-minutes <n>  give up after (default 40)
  -h, --help              show this help`;

const flags = benchFlags('bench/once-under-load.ts', USAGE, {
  runs: { type: 'string', default: '300' },
  workers: { type: 'string', default: '3' },
  'in-flight': { type: 'string', default: '60' },
  kill: { type: 'boolean', default: false },
  'kill-at': { type: 'string', default: '0.33' },
  reconcile: { type: 'boolean', default: false },
  'effect-ms': { type: 'string', default: '100' },
  store: { type: 'string' },
  effects: { type: 'string' },
  'deadline-minutes': { type: 'string', default: '40' },
});
const RUNS = Number(flags.runs);
const WORKERS = Number(flags.workers);
const IN_FLIGHT = Math.min(Number(flags['in-flight']), RUNS);
const KILL_AT = Number(flags['kill-at']);
const EFFECT_MS = Number(flags['effect-ms']);
const DEADLINE_MS = Number(flags['deadline-minutes']) * 60_000;
const STORE = flags.store ?? process.env.CAIRN_RUN_STORE ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EFFECTS_URL = flags.effects ?? (/^postgres(ql)?:/.test(STORE) ? STORE : undefined);
if (
  ![RUNS, WORKERS, IN_FLIGHT, DEADLINE_MS].every((n) => Number.isInteger(n) && n > 0) ||
  !(EFFECT_MS >= 0) ||
  !(KILL_AT > 0 && KILL_AT < 1) ||
  (flags.kill && WORKERS < 2) ||
  EFFECTS_URL === undefined
) {
  console.error(
    'bench/once-under-load.ts: --runs, --workers (at least 2 with --kill), --in-flight, --deadline-minutes are positive integers, --effect-ms ≥ 0, 0 < --kill-at < 1; a store that is not PostgreSQL needs --effects <postgres url>.',
  );
  process.exit(2);
}
const AGENT = flags.reconcile ? onceReconciledAgent : onceAgent;
const CACHE = Math.ceil(IN_FLIGHT / Math.max(WORKERS - 1, 1)) + 50;
const EFFECTS_TABLE = 'cairn_once_bench_effects';
/** Start requests at once: a burst of hundreds times out on a loaded server. */
const STARTS_AT_ONCE = 20;

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const load = () => loadavg()[0]!;

interface WorkerProcess {
  readonly identity: string;
  readonly child: ChildProcess;
}

function startWorker(identity: string, settings: Record<string, string>): Promise<WorkerProcess> {
  // Node itself with tsx's loader (not the tsx launcher, which would leave its node child alive on SIGKILL).
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'bench', 'once-under-load-worker.ts')], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...settings, WORKER_IDENTITY: identity },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on(
      'data',
      (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve({ identity, child }),
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`${identity} exited (${code ?? signal}) before it was ready`)),
    );
  });
}

async function mapLimited<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const limit = limiter(size);
  return Promise.all(items.map((item) => limit(() => fn(item))));
}

/** Reads again what a loaded server failed to answer (a long poll that timed out), a few times. */
async function patiently<T>(what: () => Promise<T>, final = (_: unknown) => false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await what();
    } catch (error) {
      if (final(error) || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

const decode = (payload: temporal.api.common.v1.IPayload | null | undefined): unknown =>
  payload ? defaultPayloadConverter.fromPayload(payload as never) : undefined;
const at = (event: Event): number => {
  const time = event.eventTime;
  return time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;
};

/** One attempt of a tool call (`runOnceTool`), as the run's history tells it. */
interface Attempt {
  readonly activityId: string;
  /** The call's idempotency key: a call that runs again keeps it. */
  readonly key: string;
  readonly scheduledAt: number;
  startedAt?: number;
  identity?: string;
  end?: 'completed' | 'failed' | 'timed_out' | 'canceled';
  endedAt?: number;
  timeoutType?: string;
  /** The last heartbeat's details were the fence's mark: `execute` may have begun. */
  began?: boolean;
  /** Another `runOnceTool` was scheduled after this one ended. */
  ranAgain?: boolean;
}

interface RunHistory {
  readonly workflowId: string;
  readonly startedAt: number;
  readonly attempts: Attempt[];
  readonly reconciles: number;
  /** The questions the run published as waiting on a person (its memo). */
  readonly questions: { readonly at: number; readonly question: string }[];
  readonly events: readonly Event[];
}

function readHistory(workflowId: string, events: readonly Event[]): RunHistory {
  const byScheduled = new Map<string, Attempt>();
  const attempts: Attempt[] = [];
  const questions: RunHistory['questions'] = [];
  let reconciles = 0;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name;
      if (type === 'reconcileTool') reconciles++;
      if (type !== RUN_ONCE_TOOL) continue;
      const input = decode(scheduled.input?.payloads?.[0]) as { idempotencyKey?: string } | undefined;
      const key = input?.idempotencyKey ?? '?';
      for (const earlier of attempts) if (earlier.end && earlier.key === key) earlier.ranAgain = true;
      const attempt: Attempt = { activityId: scheduled.activityId ?? '', key, scheduledAt: at(event) };
      attempts.push(attempt);
      byScheduled.set(String(event.eventId), attempt);
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    const attempt = byScheduled.get(
      String(
        (
          started ??
          event.activityTaskCompletedEventAttributes ??
          event.activityTaskFailedEventAttributes ??
          event.activityTaskTimedOutEventAttributes ??
          event.activityTaskCanceledEventAttributes
        )?.scheduledEventId ?? '',
      ),
    );
    if (attempt && started) {
      attempt.startedAt = at(event);
      attempt.identity = started.identity ?? '?';
    } else if (attempt) {
      const timedOut = event.activityTaskTimedOutEventAttributes;
      attempt.endedAt = at(event);
      attempt.end = event.activityTaskCompletedEventAttributes
        ? 'completed'
        : event.activityTaskFailedEventAttributes
          ? 'failed'
          : timedOut
            ? 'timed_out'
            : 'canceled';
      if (timedOut) {
        let failure = timedOut.failure;
        while (failure && !failure.timeoutFailureInfo) failure = failure.cause;
        const info = failure?.timeoutFailureInfo;
        attempt.timeoutType = TimeoutType[Number(info?.timeoutType ?? 0)]?.replace('TIMEOUT_TYPE_', '') ?? '?';
        attempt.began = decode(info?.lastHeartbeatDetails?.payloads?.[0]) === ONCE_BEGAN;
      }
    }
    const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[WAITING_MEMO];
    if (memo) {
      const waiting = decode(memo) as WaitingSummary | null;
      if (waiting?.clarification) questions.push({ at: at(event), question: waiting.clarification.question });
    }
  }
  return { workflowId, startedAt: events[0] ? at(events[0]) : 0, attempts, reconciles, questions, events };
}

/** The events from the asked attempt's scheduling to the question, one line each, seconds after the run began. */
function storyOf(run: RunHistory, rows: readonly EffectRow[]): string[] {
  const asked = run.questions[0]!;
  const lost = run.attempts.filter((a) => a.end === 'timed_out' || a.end === 'failed').at(-1);
  const from = lost?.scheduledAt ?? asked.at - 60_000;
  // Seconds into the run, and the clock time, to lay beside the server's and the bench's own logs.
  const s = (ms: number) =>
    `${((ms - run.startedAt) / 1000).toFixed(1)} s (${new Date(ms).toISOString().slice(11, 22)})`;
  const lines = run.events
    .filter((e) => at(e) >= from && at(e) <= asked.at)
    .map((e) => {
      const type = EventType[Number(e.eventType)]?.replace('EVENT_TYPE_', '') ?? '?';
      const who =
        e.activityTaskStartedEventAttributes?.identity ??
        e.workflowTaskStartedEventAttributes?.identity ??
        e.workflowTaskCompletedEventAttributes?.identity ??
        '';
      const scheduled = e.activityTaskScheduledEventAttributes;
      const key =
        scheduled && run.attempts.find((a) => a.scheduledAt === at(e) && a.activityId === scheduled.activityId)?.key;
      const what = scheduled
        ? ` ${scheduled.activityType?.name} id ${scheduled.activityId}${key ? ` key ${key}` : ''}`
        : '';
      const attempt = run.attempts.find((a) => a.endedAt === at(e) && e.activityTaskTimedOutEventAttributes);
      const timeout = attempt ? ` ${attempt.timeoutType}, began mark: ${attempt.began ? 'yes' : 'no'}` : '';
      return `    ${s(at(e))} #${e.eventId} ${type}${what}${who ? ` by ${who}` : ''}${timeout}`;
    });
  const own = rows
    .filter((r) => r.workflow_id === run.workflowId)
    .map((r) => `    ${s(r.at.getTime())} effects table: ${r.event} ${r.key} (activity ${r.activity_id}, ${r.worker})`);
  return [`  ${run.workflowId}: "${asked.question.slice(0, 120)}…"`, ...lines, ...own];
}

interface EffectRow {
  readonly event: 'began' | 'effect';
  readonly key: string;
  readonly workflow_id: string;
  readonly activity_id: string;
  readonly worker: string;
  readonly at: Date;
}

async function withEffects<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: EFFECTS_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const startLoad = load();
  log(`load ${startLoad.toFixed(1)}; starting the server, bundling the workflows.`);
  const external = hasExternalServer();
  const [server, bundle] = await Promise.all([
    (external ? connectFromEnvironment() : startEmbeddedServer({ log })) as Promise<Connected>,
    bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'once-under-load-workflows.ts')),
  ]);
  const workers: WorkerProcess[] = [];
  try {
    const bundlePath = join(PACKAGE_ROOT, '.cache', 'once-under-load', 'bundle.js');
    await mkdir(join(PACKAGE_ROOT, '.cache', 'once-under-load'), { recursive: true });
    await writeFile(bundlePath, bundle.code);
    await withEffects(async (db) => {
      await db.query(`DROP TABLE IF EXISTS ${EFFECTS_TABLE}`);
      await db.query(
        `CREATE TABLE ${EFFECTS_TABLE} (event text NOT NULL, key text NOT NULL, workflow_id text NOT NULL, activity_id text NOT NULL, attempt int NOT NULL, worker text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`,
      );
    });
    const taskQueue = `once-load-${randomUUID().slice(0, 8)}`;
    const settings = {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TASK_QUEUE: taskQueue,
      BUNDLE: bundlePath,
      CAIRN_RUN_STORE: STORE,
      EFFECTS_URL: EFFECTS_URL!,
      EFFECTS_TABLE,
      EFFECT_MS: String(EFFECT_MS),
      MAX_CACHED_WORKFLOWS: String(CACHE),
    };
    workers.push(
      ...(await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(`once-worker-${i + 1}`, settings)))),
    );
    const victim = workers.at(-1)!;
    log(
      `${WORKERS} workers ready on ${taskQueue}; ${RUNS} runs of agent ${AGENT.name}, ${IN_FLIGHT} in flight${flags.kill ? `; ${victim.identity} is SIGKILLed at ${Math.round(KILL_AT * 100)} %` : ''}.`,
    );

    const cairn = new CairnClient({ client: server.client, taskQueue });
    const startLimit = limiter(STARTS_AT_ONCE);
    const began = Date.now();
    const loads: number[] = [load()];
    const ids: string[] = [];
    const failed: { workflowId: string; error: string }[] = [];
    let next = 0;
    let completed = 0;
    let killedAt: number | undefined;
    let restarting: Promise<void> | undefined;
    let expired = false;
    const deadline = new Promise<void>((resolve) =>
      setTimeout(() => {
        expired = true;
        resolve();
      }, DEADLINE_MS).unref(),
    );
    const asked = new Map<string, { question: string; at: number }>();
    const answered = new Set<string>();
    const watch = setInterval(() => void answerQuestions(server.client, taskQueue, asked, answered), 3_000);
    const progress = setInterval(() => {
      loads.push(load());
      log(
        `${completed} of ${RUNS} runs completed, ${failed.length} failed, ${asked.size} asked a person; load ${load().toFixed(1)}`,
      );
    }, 10_000);

    const lane = async () => {
      while (!expired && next < RUNS) {
        const workflowId = `once-${++next}-${taskQueue.slice(-8)}`;
        ids.push(workflowId);
        try {
          const run = await startLimit(() =>
            cairn.start({ agent: AGENT.name, prompt: 'Record the entries.', model: 'scripted:once', workflowId }),
          );
          const result = await Promise.race([
            patiently(
              () => run.result(),
              (error) => error instanceof WorkflowFailedError,
            ),
            deadline.then(() => undefined),
          ]);
          if (!result) continue;
          completed++;
          if (flags.kill && killedAt === undefined && completed >= KILL_AT * RUNS) {
            victim.child.kill('SIGKILL');
            killedAt = Date.now();
            log(
              `SIGKILLed ${victim.identity} (pid ${victim.child.pid}) after ${completed} completed runs; starting it again.`,
            );
            restarting = startWorker(`${victim.identity}-restarted`, settings).then((w) => void workers.push(w));
          }
        } catch (error) {
          failed.push({ workflowId, error: (error as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    await restarting;
    clearInterval(watch);
    clearInterval(progress);
    const ended = Date.now();
    const endLoad = load();
    loads.push(endLoad);
    log(`runs done in ${((ended - began) / 1000).toFixed(0)} s; reading ${ids.length} histories.`);

    const histories = await mapLimited(ids, 8, async (id) =>
      readHistory(id, (await patiently(() => server.client.workflow.getHandle(id).fetchHistory())).events ?? []),
    );
    const rows = await withEffects(
      async (db) =>
        (
          await db.query<EffectRow>(
            `SELECT event, key, workflow_id, activity_id, worker, at FROM ${EFFECTS_TABLE} ORDER BY at`,
          )
        ).rows,
    );
    console.log(
      report({
        server: external ? server.address : `embedded dev server (${server.address})`,
        victim: victim.identity,
        began,
        killedAt: killedAt === undefined ? undefined : killedAt - began,
        wallMs: ended - began,
        loads,
        startLoad,
        endLoad,
        completed,
        failed,
        unfinished: ids.length - completed - failed.length,
        asked,
        histories,
        rows,
      }),
    );
  } finally {
    await stopChildren(workers.map((w) => w.child));
    await server.close();
  }
}

/** Answers every run that waits on a person (its memo says so: one visibility list, no Query per run). */
async function answerQuestions(
  client: Client,
  taskQueue: string,
  asked: Map<string, { question: string; at: number }>,
  answered: Set<string>,
): Promise<void> {
  try {
    for await (const run of client.workflow.list({
      query: `TaskQueue="${taskQueue}" AND ExecutionStatus="Running"`,
    })) {
      const waiting = run.memo?.[WAITING_MEMO] as WaitingSummary | null | undefined;
      const clarification = waiting?.clarification;
      if (!clarification || answered.has(`${run.workflowId}/${clarification.id}`)) continue;
      answered.add(`${run.workflowId}/${clarification.id}`);
      if (!asked.has(run.workflowId)) asked.set(run.workflowId, { question: clarification.question, at: Date.now() });
      log(`${run.workflowId} asks: ${clarification.question.slice(0, 160)}`);
      void client.workflow
        .getHandle(run.workflowId)
        .executeUpdate(answerClarificationUpdate, { args: [{ id: clarification.id, answer: 'I do not know.' }] })
        .catch((error: Error) => {
          answered.delete(`${run.workflowId}/${clarification.id}`);
          log(`Answering ${run.workflowId} failed (${error.message}); trying again.`);
        });
    }
  } catch (error) {
    log(`Listing waiting runs failed (${(error as Error).message}).`);
  }
}

interface Outcome {
  readonly server: string;
  readonly victim: string;
  /** When the first run started (epoch ms); `killedAt` is after it. */
  readonly began: number;
  readonly killedAt: number | undefined;
  readonly wallMs: number;
  readonly loads: readonly number[];
  readonly startLoad: number;
  readonly endLoad: number;
  readonly completed: number;
  readonly failed: readonly { workflowId: string; error: string }[];
  readonly unfinished: number;
  readonly asked: ReadonlyMap<string, { question: string; at: number }>;
  readonly histories: readonly RunHistory[];
  readonly rows: readonly EffectRow[];
}

function report(o: Outcome): string {
  const attempts = o.histories.flatMap((h) => h.attempts);
  const timedOut = attempts.filter((a) => a.end === 'timed_out');
  const notBegun = timedOut.filter((a) => !a.began);
  const withMark = timedOut.filter((a) => a.began);
  const onVictim = (a: Attempt) => a.identity === o.victim;
  // Timed out after the kill on the killed worker: the kill may explain it.
  const killed = (a: Attempt) => onVictim(a) && o.killedAt !== undefined && (a.endedAt ?? 0) >= o.began + o.killedAt;
  const effectsPerKey = new Map<string, number>();
  for (const r of o.rows) if (r.event === 'effect') effectsPerKey.set(r.key, (effectsPerKey.get(r.key) ?? 0) + 1);
  const duplicates = [...effectsPerKey].filter(([, n]) => n > 1);
  // An execute that began in an attempt its run counted as never begun: the fence's claim broken.
  const neverBegun = new Set(
    o.histories.flatMap((h) =>
      h.attempts.filter((a) => a.end === 'timed_out' && !a.began).map((a) => `${h.workflowId}/${a.activityId}`),
    ),
  );
  const beganAnyway = o.rows.filter((r) => r.event === 'began' && neverBegun.has(`${r.workflow_id}/${r.activity_id}`));
  const waited = o.histories.filter((h) => h.questions.length > 0 || o.asked.has(h.workflowId));
  const expectedKeys = o.histories.length * ENTRIES.length;
  const loads = o.loads;
  const kinds = (list: readonly Attempt[]) => {
    const byType = new Map<string, number>();
    for (const a of list) byType.set(a.timeoutType ?? '?', (byType.get(a.timeoutType ?? '?') ?? 0) + 1);
    return [...byType].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  };
  return [
    `once under load (issue 50): Node ${process.version}, ${cpus().length} cores, ${o.server}; run store ${STORE.replace(/\/\/[^@/]*@/, '//')}.`,
    `${WORKERS} worker processes (10 workflow task slots, 4 pollers, 100 activity slots, sticky 20 s, cache ${CACHE}); ${RUNS} runs of agent ${AGENT.name} (${ENTRIES.length} once calls, ${flags.reconcile ? 'with' : 'no'} reconcile, execute works up to ${EFFECT_MS} ms), ${IN_FLIGHT} in flight; ${o.killedAt === undefined ? 'no worker killed' : `${o.victim} SIGKILLed ${(o.killedAt / 1000).toFixed(0)} s in (${new Date(o.began + o.killedAt).toISOString().slice(11, 22)}) and started again`}.`,
    `load average (1 min): ${figure(o.startLoad, 1)} at start, ${figure(o.endLoad, 1)} at end; ${figure(Math.min(...loads), 1)}–${figure(Math.max(...loads), 1)} over the run, median ${figure(median(loads), 1)}; ${(o.wallMs / 1000).toFixed(0)} s.`,
    '',
    `runs completed: ${o.completed} of ${RUNS}; failed: ${o.failed.length}; not finished: ${o.unfinished}${o.failed.length ? ` (e.g. ${o.failed[0]!.workflowId}: ${o.failed[0]!.error})` : ''}`,
    `runs that waited on a person ("did it?"): ${waited.length}`,
    `once attempts: ${attempts.length}; timed out: ${timedOut.length} (${kinds(timedOut)})`,
    `  without the began mark: ${notBegun.length}, ran again: ${notBegun.filter((a) => a.ranAgain).length}${o.killedAt === undefined ? '' : ` (${notBegun.filter(killed).length} timed out after the kill on the killed worker)`}`,
    `  with the mark (execute may have begun): ${withMark.length}, their effect recorded: ${withMark.filter((a) => effectsPerKey.has(a.key)).length}${o.killedAt === undefined ? '' : `, timed out after the kill on the killed worker: ${withMark.filter(killed).length}`}; reconciles: ${o.histories.reduce((t, h) => t + h.reconciles, 0)}`,
    `effects: ${effectsPerKey.size} keys of ${expectedKeys} calls; duplicate effects (a key executed twice): ${duplicates.length}${duplicates.length ? ` (e.g. ${duplicates[0]![0]})` : ''}`,
    `executes that began in an attempt counted as never begun: ${beganAnyway.length}${beganAnyway.length ? ` (e.g. ${beganAnyway[0]!.workflow_id} activity ${beganAnyway[0]!.activity_id})` : ''}`,
    ...(waited.length > 0
      ? [
          '',
          'Runs that asked, with the events from the lost attempt to the question:',
          ...waited.flatMap((h) =>
            h.questions.length ? storyOf(h, o.rows) : [`  ${h.workflowId}: asked (seen live only)`],
          ),
        ]
      : []),
  ].join('\n');
}

await main();
