/**
 * Issue 52, step 1: where a workflow task's time goes, per task kind, in Cairn's agentRun and in the
 * plain Temporal loop (bench/plain-person-loop.ts), on one worker process and one embedded dev
 * server. Both loops run the same shape (bench/task-profile-agent.ts): the start, a model turn asking
 * for a batch of 3 calls, one of which asks a person, the person's answer by Update, a second model
 * turn and its one call, continue-as-new, and a last model turn in the continuation. Each run's
 * histories give every workflow task's time (WorkflowTaskStarted → WorkflowTaskCompleted) and the
 * bytes its commands wrote, by what woke it (bench/task-kinds.ts). With `--cpu-profile`, the worker
 * process runs under `node --cpu-prof`, which profiles each of its threads: the main thread (polling,
 * activities, sinks, payload conversion) and the SDK's workflow thread (the runs' code, in one reused
 * V8 context); the top self-time functions of each are printed for the measured windows, Cairn's
 * beside the plain loop's. Runs one at a time, Cairn and plain alternating in blocks, after warm-ups.
 * With `--store`, Cairn's worker has a run store (Redis, PostgreSQL or a directory), so the table
 * shows what writing each run's transcript to it costs its tasks.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { answerClarificationUpdate, type AgentRunInput, type AgentRunResult } from '../workflows/contract/index.js';
import {
  bundleModules,
  readCpuProfile,
  summarizeProfile,
  type CpuProfile,
  type Probe,
  type ProfileSummary,
} from './cpu-profile-summary.js';
import type { PlainPersonLoopInput, PlainPersonLoopResult } from './plain-person-loop.js';
import { figure } from './report.js';
import { PERSON_ANSWER, PROFILE_AGENT, PROFILE_PROMPT, QUESTION_ID, TURNS_PER_RUN } from './task-profile-shape.js';
import { workflowTasks } from './task-kinds.js';
import { LABEL, LOOPS, kindTable, profileTable, type Loop, type RunRecord } from './task-profile-report.js';
import type { WorkerMark } from './task-profile-worker.js';

type Event = temporal.api.history.v1.IHistoryEvent;

const HELP = `Usage: npx tsx bench/workflow-task-profile.ts [--runs N] [--warmups N] [--shared-bundle] [--cpu-profile DIR]
       [--store redis|postgres|dir]

Per workflow task kind (start, model result, tool results, person, continue-as-new start): the
median and p90 of WorkflowTaskStarted → WorkflowTaskCompleted in Cairn's agentRun and in the plain
Temporal loop, their ratio, and the bytes each task's commands wrote. The worker runs in a child
process on an embedded dev server (in memory, Cairn's dynamic config): one worker with agentRun's
bundle, one with the plain loop's (none of Cairn's modules), each with its own workflow thread.

  --runs N          runs of each loop that are measured (default 20)
  --warmups N       runs of each loop first, not measured (default 3)
  --shared-bundle   give the plain loop's worker agentRun's bundle too, as bench/workflows.ts does for
                    the other benches (a run then evaluates Cairn's modules whatever loop it is)
  --cpu-profile DIR run the worker under node --cpu-prof (profiles written to DIR, one per thread)
                    and print the top 15 self-time functions of its main thread and of its workflow
                    thread in the measured windows, per run, Cairn beside the plain loop
  --store KIND      give Cairn's worker a run store (its transcript sink writes each message a run
                    appends to it, as a fleet's workers do): redis (REDIS_URL, default
                    127.0.0.1:6379), postgres (POSTGRES_URL, default postgres@127.0.0.1:5432, a table
                    of its own, dropped after) or dir (a temporary directory, removed after). Default
                    none; the plain loop's worker never has one
  --help            this text`;

/** Functions named anywhere on a sample's stack: what issue 52 suspects. */
const PROBES: readonly Probe[] = [
  { label: 'module evaluation (__webpack_require__)', matches: (f) => f.name === '__webpack_require__' },
  { label: 'zod (bundle modules zod/*)', matches: (f) => f.where.startsWith('bundle: zod/') },
  {
    label: 'promise hook: a stack per promise (SDK vm-shared `init`)',
    matches: (f) => f.name === 'init' && f.where.includes('@temporalio/worker/lib/workflow/vm-shared.js'),
  },
  { label: '  of which source-map lookups', matches: (f) => f.where.startsWith('source-map/') },
  {
    label: "Cairn's workflow code (bundle: workflows/, planner/, shared/, bench/)",
    matches: (f) => /^bundle: (workflows|planner|shared|bench)\//.test(f.where),
  },
  { label: 'SDK workflow runtime (bundle: @temporalio/*)', matches: (f) => f.where.startsWith('bundle: @temporalio/') },
  { label: 'protobuf encode/decode', matches: (f) => f.where.startsWith('protobufjs/') },
  { label: 'transcript sink (TranscriptReader.handOver)', matches: (f) => f.name.includes('handOver') },
  { label: 'garbage collector', matches: (f) => f.name === '(garbage collector)' },
];

const STORES = ['redis', 'postgres', 'dir'] as const;
type StoreKind = (typeof STORES)[number];
const STORE_LABEL: Record<StoreKind, string> = {
  redis: 'a Redis run store',
  postgres: 'a PostgreSQL run store (a table of its own)',
  dir: 'a run store in a temporary directory',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The bundle module of each line (bundleModules), also inside a module that webpack's scope hoisting
 * (runtime/workflow-bundle.ts) concatenated others into: each one's code follows a `;// ./path` line.
 * Module evaluation is still counted to the module that holds them all.
 */
function hoistedModules(code: string): (line: number) => string | undefined {
  const outer = bundleModules(code);
  const inner: { line: number; module: string }[] = [];
  let root: string | undefined;
  for (const [line, text] of code.split('\n').entries()) {
    const match = /^;\/\/ \.\/(\S+)$/.exec(text);
    if (match) inner.push({ line, module: match[1]!.replace(/^node_modules\//, '') });
    // A concatenated module's section ends where its root module does.
    else if (outer(line) !== root) (root = outer(line)), inner.push({ line, module: '' });
  }
  return (line) => {
    let lo = 0;
    let hi = inner.length - 1;
    let found = '';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (inner[mid]!.line <= line) (found = inner[mid]!.module), (lo = mid + 1);
      else hi = mid - 1;
    }
    return found || outer(line);
  };
}

function load(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`;
  }
}

/** The events of each run of the chain, first to last. */
async function chainHistories(client: Client, workflowId: string, firstRunId: string): Promise<Event[][]> {
  const runs: Event[][] = [];
  for (let runId: string | null | undefined = firstRunId; runId; ) {
    const events: Event[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return runs;
}

/**
 * Until the run waits for its person: the batch's three results in and a task completed after them,
 * none pending. Read from history, so the wait costs the worker nothing (a Query would be a task).
 */
async function untilWaiting(client: Client, workflowId: string, runId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    const types = events.map((e) => Number(e.eventType));
    const results = types.flatMap((t, i) => (t === 12 ? [i] : [])); // ACTIVITY_TASK_COMPLETED
    const lastScheduled = types.lastIndexOf(5); // WORKFLOW_TASK_SCHEDULED
    const lastCompleted = types.lastIndexOf(7); // WORKFLOW_TASK_COMPLETED
    if (results.length >= 4 && lastCompleted > results.at(-1)! && lastCompleted > lastScheduled) return;
    if (Date.now() > deadline) throw new Error(`${workflowId} never waited for its person: ${types.join(',')}`);
    await sleep(20);
  }
}

async function runOnce(client: Client, queue: string, loop: Loop): Promise<RunRecord> {
  const taskQueue = `${queue}-${loop}`;
  const workflowId = `task-profile-${loop}-${randomUUID().slice(0, 8)}`;
  const model = 'scripted:task-profile';
  const started = performance.now();
  const handle =
    loop === 'cairn'
      ? await client.workflow.start('agentRun', {
          taskQueue,
          workflowId,
          args: [
            {
              agent: PROFILE_AGENT,
              prompt: PROFILE_PROMPT,
              model,
              continueAsNewAfterTurns: TURNS_PER_RUN,
            } satisfies AgentRunInput,
          ],
          workflowExecutionTimeout: '5m',
        })
      : await client.workflow.start('plainPersonLoop', {
          taskQueue,
          workflowId,
          args: [{ model } satisfies PlainPersonLoopInput],
          workflowExecutionTimeout: '5m',
        });
  await untilWaiting(client, workflowId, handle.firstExecutionRunId);
  await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: QUESTION_ID, answer: PERSON_ANSWER }] });
  const result = (await handle.result()) as AgentRunResult | PlainPersonLoopResult;
  const ms = performance.now() - started;
  const ok =
    'outcome' in result
      ? result.reason === null && result.toolCalls === 4 && result.generation === 1
      : result.turns === 3;
  if (!ok) throw new Error(`${workflowId} did not run the profile's shape: ${JSON.stringify(result).slice(0, 400)}`);
  const runs = await chainHistories(client, workflowId, handle.firstExecutionRunId);
  return { loop, ms, tasks: runs.flatMap(workflowTasks) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmups: { type: 'string', default: '3' },
      'shared-bundle': { type: 'boolean', default: false },
      'cpu-profile': { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(HELP);
  const runs = Number(values.runs);
  const warmups = Number(values.warmups);
  if (!(runs >= 1 && warmups >= 0)) throw new Error(`--runs must be ≥ 1 and --warmups ≥ 0\n\n${HELP}`);
  const store = values.store as StoreKind | undefined;
  if (store !== undefined && !STORES.includes(store)) {
    console.error(`bench/workflow-task-profile.ts: --store must be one of ${STORES.join(', ')} (got "${store}")`);
    process.exit(2);
  }
  const profileDir = values['cpu-profile'] && resolve(values['cpu-profile']);
  const loadBefore = load();
  const log = (line: string) => console.error(line);
  const entry = (file: string) => join(PACKAGE_ROOT, 'bench', file);
  const shared = values['shared-bundle'];
  const server = await startEmbeddedServer({ log });
  // One at a time: two webpack builds at once on a loaded machine only take longer.
  const bundles: Record<Loop, { code: string; path: string }> = {} as never;
  for (const loop of LOOPS) {
    const file =
      loop === 'cairn'
        ? 'task-profile-workflows.ts'
        : shared
          ? 'task-profile-shared-workflows.ts'
          : 'plain-person-loop.ts';
    // The plain loop alone is bundled as a hand-written loop ships: the SDK's bundler, as it comes.
    const { code } =
      loop === 'plain' && !shared
        ? await bundleWorkflowCode({ workflowsPath: entry(file), logger: new DefaultLogger('WARN') })
        : await bundleWorkflows(entry(file));
    bundles[loop] = { code, path: join(tmpdir(), `cairn-task-profile-${loop}-${randomUUID().slice(0, 8)}.js`) };
    await writeFile(bundles[loop].path, code);
  }
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const storeDir = store === 'dir' ? await mkdtemp(join(tmpdir(), 'cairn-task-profile-store-')) : undefined;
  const taskQueue = `task-profile-${randomUUID().slice(0, 8)}`;
  const child = spawn(
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      '--import',
      'tsx',
      join(PACKAGE_ROOT, 'bench', 'task-profile-worker.ts'),
    ],
    {
      cwd: PACKAGE_ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        TASK_QUEUE: taskQueue,
        CAIRN_BUNDLE: bundles.cairn.path,
        PLAIN_BUNDLE: bundles.plain.path,
        ...(store && { CAIRN_STORE: store }),
        ...(storeDir && { CAIRN_STORE_DIR: storeDir }),
      },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  const marks: WorkerMark[] = [];
  const waiting = new Map<string, (mark: WorkerMark) => void>();
  child.on('message', (m: WorkerMark) => (marks.push(m), waiting.get(m.mark)?.(m)));
  const mark = (label: string) =>
    new Promise<WorkerMark>((done) => {
      waiting.set(label, done);
      child.send({ mark: label });
    });
  await new Promise<void>((ready, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && ready());
    void exited.then((code) => fail(new Error(`the worker exited (${code}) before it was ready`)));
  });

  const records: RunRecord[] = [];
  const windows: Record<Loop, { from: number; to: number }[]> = { cairn: [], plain: [] };
  const cpu: Record<Loop, number> = { cairn: 0, plain: 0 };
  try {
    for (let i = 0; i < warmups; i++) for (const loop of LOOPS) await runOnce(server.client, taskQueue, loop);
    // Blocks of one loop at a time, so each profile window holds one loop's tasks; alternating, so
    // a slow spell of a shared machine hits both.
    const block = Math.min(5, runs);
    for (let done = 0, n = 0; done < runs; done += block, n++) {
      for (const loop of LOOPS) {
        const from = await mark(`${loop}-${n}-from`);
        for (let i = 0; i < Math.min(block, runs - done); i++)
          records.push(await runOnce(server.client, taskQueue, loop));
        const to = await mark(`${loop}-${n}-to`);
        windows[loop].push({ from: from.at, to: to.at });
        cpu[loop] += to.cpu.user + to.cpu.system - from.cpu.user - from.cpu.system;
      }
      log(`${Math.min(runs, done + block)} of ${runs} runs of each loop measured`);
    }
  } finally {
    child.send({ stop: true });
    await exited;
    await server.close();
    for (const loop of LOOPS) await rm(bundles[loop].path, { force: true });
    if (storeDir) await rm(storeDir, { recursive: true, force: true });
  }

  const loadAfter = load();
  const out: string[] = [
    `Workflow tasks by kind (issue 52): Node ${process.version}, ${cpus().length} cores, embedded dev server (${server.address}, in memory), one worker process (${store ? `Cairn's worker with ${STORE_LABEL[store]}, the plain loop's with none` : 'no run store'}).`,
    `Load before: ${loadBefore}`,
    `Load after:  ${loadAfter}`,
    `Plain loop bundle: ${shared ? "agentRun's too (--shared-bundle: every run evaluates Cairn's modules)" : "its own, by the SDK's bundler as it comes (no Cairn modules, no zod)"}.`,
    `${runs} runs of each loop after ${warmups} warm-up(s) each, one at a time, in blocks alternating Cairn and plain. A run: start → model (3 calls, one asks a person) → 3 tool results → the person's answer (Update) → model (1 call) → its result → continue-as-new → model (text).`,
    `Times are WorkflowTaskStarted → WorkflowTaskCompleted in history; wait = scheduled → started; cmd B = encoded bytes of the events the task's commands wrote. C = ${LABEL.cairn}, P = ${LABEL.plain} (bench/plain-person-loop.ts).`,
    '',
    kindTable(records),
    '',
    `Worker process CPU (main thread + workflow thread, from process.cpuUsage over the measured windows): ${figure(cpu.cairn / 1_000 / runs)} ms/run Cairn, ${figure(cpu.plain / 1_000 / runs)} ms/run plain (${(cpu.cairn / cpu.plain).toFixed(2)}×).`,
  ];
  if (profileDir) {
    const files = (await readdir(profileDir)).filter((f) => f.includes(`.${child.pid}.`) && f.endsWith('.cpuprofile'));
    const profiles = await Promise.all(
      files.sort().map(async (file) => ({ file, profile: await readCpuProfile(join(profileDir, file)) })),
    );
    const ofBundle = (profile: CpuProfile, loop: Loop) =>
      profile.nodes.some((n) => n.callFrame.url.endsWith(basename(bundles[loop].path)));
    const summaries = (profile: CpuProfile, bundle: Loop) =>
      Object.fromEntries(
        LOOPS.map((loop) => [
          loop,
          summarizeProfile(profile, windows[loop], {
            bundle: { path: bundles[bundle].path, moduleAt: hoistedModules(bundles[bundle].code) },
            probes: PROBES,
          }),
        ]),
      ) as Record<Loop, ProfileSummary>;
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread.
    const main = profiles.find(({ file }) => file.split('.')[4] === '0');
    if (main) out.push('', profileTable(`Worker main thread (${main.file})`, summaries(main.profile, 'cairn'), runs));
    // The main thread loads each bundle too (to check it): a workflow thread is another that ran one.
    const threads = LOOPS.map((loop) => profiles.find((p) => p !== main && ofBundle(p.profile, loop)));
    if (threads[0] && threads[1]) {
      // Each loop's runs on its own worker's workflow thread: Cairn's windows of one, the plain loop's of the other.
      const cairn = summaries(threads[0].profile, 'cairn').cairn;
      const plain = summaries(threads[1].profile, 'plain').plain;
      out.push('', profileTable(`Workflow threads (${threads[0].file}, ${threads[1].file})`, { cairn, plain }, runs));
    }
  }
  console.log(out.join('\n'));
}

await main();
