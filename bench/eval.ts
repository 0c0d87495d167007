/**
 * `npm run bench:eval`: what `cairn eval` costs. N recorded cases (three tool calls that each take
 * --tool-ms, four model turns that each take --model-ms) are re-run live with their tools, then
 * evaluated twice on the same server at the same concurrency: with nothing kept (bundles and
 * baselines made), and as a second eval module of the same agent (bench/eval-candidate.ts: a new
 * candidate; the baselines kept by the first). Against the floor, the candidate's own model turns
 * (they must run: N / concurrency waves of four turns), and against the same turns on Temporal
 * alone (bench/eval-bare-loop.ts: what Temporal costs for them here). Then the memory of evaluating
 * --memory-cases cases. Prints the machine's load (os.loadavg) with each figure. Node-only.
 * `--cases <n>` (default 20; 1000 takes ~10 min, most of it the live re-run), `--tool-ms <n>`
 * (default 1000), `--model-ms <n>` (default 300), `--memory-cases <n>` (default 1000; 0: none).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type NativeConnection } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { connectFromEnvironment, hasExternalServer } from '../runtime/connection.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { runEval } from '../runtime/eval/run-eval.js';
import { writeAgentsEntry } from '../runtime/agents-entry.js';
import { createCairnWorker } from '../runtime/worker.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { PerRunScriptedModel } from '../testing/per-run-scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import { figure, table } from './report.js';
import { toolTiming } from './eval-agents.js';
import { benchFlags } from './bench-flags.js';
import { bareLoop, type BareLoopActivities } from './eval-bare-loop.js';
import { limiter } from './limiter.js';

const USAGE = `npm run bench:eval [-- options]

Times cairn eval against a live re-run of the same cases, against its floor (the candidate's own
model turns) and against the same turns on Temporal alone (a bare loop), in one run on one server,
and prints the ratios with the machine's load (docs/bench.md).

  --cases <n>          cases per evaluation (default 20)
  --memory-cases <n>   cases of the memory figure (default 1000)
  --model-ms <ms>      one model turn's time (default 300)
  --tool-ms <ms>       one tool call's time in the live re-run (default 1000)
  -h, --help           show this help`;

const values = benchFlags('bench/eval.ts', USAGE, {
  cases: { type: 'string', default: '20' },
  'memory-cases': { type: 'string', default: '1000' },
  'model-ms': { type: 'string', default: '300' },
  'tool-ms': { type: 'string', default: '1000' },
});
const CASES = Number(values.cases);
const MEMORY_CASES = Number(values['memory-cases']);
const CONCURRENCY = 16;
/** Recording the cases (instant model and tools, not timed) runs more at once. */
const RECORD_CONCURRENCY = 32;
/** How long one model turn takes, for the live re-run and the candidate lane alike (a fast hosted model's tool-calling turn). */
const MODEL_MS = Number(values['model-ms']);
const TOOL_MS = Number(values['tool-ms']);
const MODULE = fileURLToPath(new URL('./eval-module.ts', import.meta.url));
const NEXT_MODULE = fileURLToPath(new URL('./eval-candidate.ts', import.meta.url));

/** The case's script: three lookups (ids from its prompt), then done; each turn MODEL_MS long. */
function benchModel(name: string, delayMs: number): ModelClient {
  const scripted = new PerRunScriptedModel(name, () => [
    ...[1, 2, 3].map((n) =>
      scriptStep.react(({ messages }) =>
        scriptStep.call('fetch_record', { id: `${String(messages[1]?.content)}-${n}` }),
      ),
    ),
    scriptStep.react(({ messages }) => scriptStep.text(`Done with ${String(messages[1]?.content)}.`)),
  ]);
  return {
    async generate(input: GenerateInput): Promise<ModelOutcome> {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return scripted.generate(input);
    },
  };
}

const load = () => loadavg()[0]!.toFixed(1);

/**
 * The same turns on Temporal alone (bench/eval-bare-loop.ts), CONCURRENCY at once: its worker's start
 * (the bundle made before) and the runs, as an evaluation with its baselines kept has them.
 */
async function runBareLoop(
  client: Client,
  connection: NativeConnection,
  cases: number,
): Promise<{ ms: number; startMs: number; cpu: string }> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./eval-bare-loop.ts', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  });
  const taskQueue = `eval-bench-bare-${randomUUID()}`;
  const activities: BareLoopActivities = {
    modelTurn: (ms) => new Promise((resolve) => setTimeout(() => resolve('turn'), ms)),
    recordedTool: async (id) => id,
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const worker = await Worker.create({ connection, taskQueue, workflowBundle, activities });
  const running = worker.run();
  const startMs = performance.now() - started;
  try {
    const lane = limiter(CONCURRENCY);
    await Promise.all(
      Array.from({ length: cases }, () =>
        lane(() =>
          client.workflow.execute(bareLoop, {
            taskQueue,
            workflowId: `eval-bench-bare-${randomUUID()}`,
            args: [MODEL_MS],
          }),
        ),
      ),
    );
    return { ms: performance.now() - started, startMs, cpu: cpuSeconds(cpu) };
  } finally {
    worker.shutdown();
    await running;
  }
}
/** CPU seconds (user + system) this process spent since `since`: its workers' threads included, the server's not. */
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return figure((user + system) / 1e6, 1);
};

/** Runs `prompts` live on a plain Cairn worker (tools for real) and returns the wall time; writes histories into `dir` if given. */
async function runLive(
  client: Client,
  connection: NativeConnection,
  prompts: readonly string[],
  options: { modelMs: number; toolMs: number; dir?: string; concurrency?: number },
): Promise<number> {
  toolTiming.ms = options.toolMs;
  const taskQueue = `eval-bench-live-${randomUUID()}`;
  const { evalBenchAgent } = await import('./eval-agents.js');
  const worker = await createCairnWorker({
    connection,
    client,
    taskQueue,
    agents: [evalBenchAgent],
    workflowsPath: await writeAgentsEntry(MODULE.replace(/eval-module\.ts$/, 'eval-agents.ts')),
    models: { scripts: { 'eval-bench': benchModel('eval-bench', options.modelMs) } },
    worker: { maxConcurrentActivityTaskExecutions: 200, maxConcurrentWorkflowTaskExecutions: 50 },
  });
  const running = worker.run();
  const started = performance.now();
  try {
    const lane = limiter(options.concurrency ?? CONCURRENCY);
    await Promise.all(
      prompts.map((prompt) =>
        lane(async () => {
          const handle = await client.workflow.start('agentRun', {
            taskQueue,
            workflowId: `eval-bench-${randomUUID()}`,
            args: [{ agent: 'eval-bench', prompt, model: 'scripted:eval-bench' }],
          });
          await handle.result();
          if (options.dir)
            await writeFile(join(options.dir, `${prompt}.json`), historyToJSON(await handle.fetchHistory()));
        }),
      ),
    );
    return performance.now() - started;
  } finally {
    worker.shutdown();
    await running;
  }
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const server = hasExternalServer() ? await connectFromEnvironment() : await startEmbeddedServer();
const dir = await mkdtemp(join(tmpdir(), 'cairn-eval-bench-'));
try {
  const { client, workerConnection: connection } = server;
  console.log(`cairn eval bench: Node ${process.version}, ${cpus().length} cores, ${server.address}`);
  console.log(
    `Each case: 3 tool calls of ${TOOL_MS} ms, 4 model turns of ${MODEL_MS} ms; ${CONCURRENCY} cases at once; load ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}.\n`,
  );

  // 1. Record the cases (live, instantly), re-run them live at the setting, then evaluate them twice.
  const prompts = Array.from({ length: CASES }, (_, i) => `case-${i}`);
  await runLive(client, connection, prompts, { modelMs: 0, toolMs: 0, dir, concurrency: RECORD_CONCURRENCY });
  const cacheDir = await mkdtemp(join(tmpdir(), 'cairn-eval-bench-cache-'));
  const loadLive = load();
  const cpuBefore = process.cpuUsage();
  const liveMs = await runLive(client, connection, prompts, { modelMs: MODEL_MS, toolMs: TOOL_MS });
  const liveCpu = cpuSeconds(cpuBefore);
  console.log(`  live re-run: ${figure(liveMs / 1000)} s, load ${loadLive} → ${load()}`);
  const evaluate = async (module: string) => {
    const loadBefore = load();
    const cpu = process.cpuUsage();
    const evalStarted = performance.now();
    const report = await runEval({
      module,
      cases: { histories: [dir] },
      client,
      connection,
      models: { scripts: { 'eval-bench': benchModel('eval-bench', MODEL_MS) } },
      concurrency: CONCURRENCY,
      cacheDir,
    });
    const ms = performance.now() - evalStarted;
    if (report.summary.changedCases !== 0 || report.summary.harnessAgreement !== 1)
      throw new Error(`the bench's evaluation found changes: ${JSON.stringify(report.summary)}`);
    const kept = report.cases.filter((item) => item.baseline?.reused).length;
    // As it comes: a 1,000-case run takes minutes per figure.
    console.log(
      `  ${module.split('/').at(-1)}: ${figure(ms / 1000)} s, ${kept} baselines kept, load ${loadBefore} → ${load()}`,
    );
    return { ms, kept, cpu: cpuSeconds(cpu), load: `${loadBefore} → ${load()}` };
  };
  const cold = await evaluate(MODULE);
  const next = await evaluate(NEXT_MODULE);
  const loadBare = load();
  const bare = await runBareLoop(client, connection, CASES);
  const bareLoad = `${loadBare} → ${load()}`;
  console.log(
    `  the same turns on Temporal alone: ${figure(bare.ms / 1000)} s (its worker's start ${figure(bare.startMs / 1000, 2)} s), load ${bareLoad}`,
  );
  // The candidate's model turns as the evaluation must run them: each case's four in turn, CONCURRENCY
  // cases at once (the eval modules' `concurrency`, the live re-run's too), so ceil(N / CONCURRENCY) waves.
  const floorMs = Math.ceil(CASES / CONCURRENCY) * 4 * MODEL_MS;
  const row = (name: string, ms: number, cpu: string, load: string) => [
    name,
    String(CASES),
    figure(ms / 1000),
    `${figure(ms / floorMs, 2)}×`,
    `${figure(liveMs / ms, 2)}×`,
    cpu,
    load,
  ];
  console.log(
    table(
      ['', 'cases', 'seconds', '÷ floor', 'live ÷ it', 'CPU s (bench process)', 'load (1 min)'],
      [
        row('re-run live with the tools', liveMs, liveCpu, `${loadLive} → ${load()}`),
        row(`cairn eval, nothing kept (${cold.kept} baselines kept)`, cold.ms, cold.cpu, cold.load),
        row(`cairn eval, a new eval module (${next.kept} baselines kept)`, next.ms, next.cpu, next.load),
        row('the same turns on Temporal alone (bare loop)', bare.ms, bare.cpu, bareLoad),
        row("floor: the candidate's model turns", floorMs, '', ''),
      ],
    ),
  );
  await rm(cacheDir, { recursive: true, force: true });

  // 2. Memory of a 1,000-case evaluation (model and tools instant: only the evaluation's own cost).
  if (MEMORY_CASES > 0) {
    const memoryDir = await mkdtemp(join(tmpdir(), 'cairn-eval-bench-'));
    const many = Array.from({ length: MEMORY_CASES }, (_, i) => `mem-${i}`);
    await runLive(client, connection, many, { modelMs: 0, toolMs: 0, dir: memoryDir, concurrency: RECORD_CONCURRENCY });
    global.gc?.();
    const before = process.memoryUsage();
    let peak = { rss: before.rss, heapUsed: before.heapUsed };
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = { rss: Math.max(peak.rss, now.rss), heapUsed: Math.max(peak.heapUsed, now.heapUsed) };
    }, 100);
    const memStarted = performance.now();
    const big = await runEval({
      module: MODULE,
      cases: { histories: [memoryDir] },
      client,
      connection,
      models: { scripts: { 'eval-bench': benchModel('eval-bench', 0) } },
      concurrency: CONCURRENCY,
      cacheDir: false,
    });
    clearInterval(sampler);
    const memMs = performance.now() - memStarted;
    const mb = (bytes: number) => figure(bytes / 2 ** 20);
    const reportBytes = JSON.stringify(big).length;
    console.log(
      `\n${MEMORY_CASES} cases evaluated in ${figure(memMs / 1000)} s (${figure((MEMORY_CASES / memMs) * 1000, 1)} cases/s, load ${load()}): ` +
        `heap ${mb(before.heapUsed)} → peak ${mb(peak.heapUsed)} MiB (+${figure((peak.heapUsed - before.heapUsed) / 1024 / MEMORY_CASES)} KiB a case), ` +
        `RSS ${mb(before.rss)} → peak ${mb(peak.rss)} MiB; the report (JSON) is ${mb(reportBytes)} MiB; ${big.summary.changedCases} case(s) changed.`,
    );
    await rm(memoryDir, { recursive: true, force: true });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  await server.close();
}
