/**
 * `npm run bench:eval`: what `cairn eval` costs. N recorded cases (three tool calls that each take
 * TOOL_MS, four model turns that each take MODEL_MS) are evaluated — a baseline and a candidate
 * run per case, tools served from the recording — and the same N cases are re-run live with their
 * tools, on the same server and the same kind of worker, at the same concurrency: cases per
 * second, and their ratio. Then the memory of evaluating 1,000 cases: the process's heap and RSS
 * at their peak during the evaluation, against before it. Prints the machine's load with each
 * figure. Node-only. `--cases <n>` (default 200), `--memory-cases <n>` (default 1000), `--model-ms <n>` (default 800).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, type NativeConnection } from '@temporalio/worker';
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
import { TOOL_MS } from './eval-module.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '200' },
    'memory-cases': { type: 'string', default: '1000' },
    'model-ms': { type: 'string', default: '800' },
  },
});
const CASES = Number(values.cases);
const MEMORY_CASES = Number(values['memory-cases']);
const CONCURRENCY = 16;
/** How long one model turn takes, for the live re-run and the candidate lane alike (a fast hosted model's tool-calling turn). */
const MODEL_MS = Number(values['model-ms']);
const MODULE = fileURLToPath(new URL('./eval-module.ts', import.meta.url));

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

/** Runs `prompts` live on a plain Cairn worker (tools for real) and returns the wall time; writes histories into `dir` if given. */
async function runLive(
  client: Client,
  connection: NativeConnection,
  prompts: readonly string[],
  options: { modelMs: number; dir?: string },
): Promise<number> {
  const taskQueue = `eval-bench-live-${randomUUID()}`;
  const { evalBenchAgent } = await import('./eval-module.js');
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
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < prompts.length) {
          const prompt = prompts[next++]!;
          const handle = await client.workflow.start('agentRun', {
            taskQueue,
            workflowId: `eval-bench-${randomUUID()}`,
            args: [{ agent: 'eval-bench', prompt, model: 'scripted:eval-bench' }],
          });
          await handle.result();
          if (options.dir)
            await writeFile(join(options.dir, `${prompt}.json`), historyToJSON(await handle.fetchHistory()));
        }
      }),
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
    `Each case: 3 tool calls of ${TOOL_MS} ms, 4 model turns of ${MODEL_MS} ms; ${CONCURRENCY} cases at once.\n`,
  );

  // 1. Record the cases (live), then evaluate them, then re-run them live again: same prompts.
  const prompts = Array.from({ length: CASES }, (_, i) => `case-${i}`);
  await runLive(client, connection, prompts, { modelMs: 0, dir });
  const loadBefore = load();
  const evalStarted = performance.now();
  const report = await runEval({
    module: MODULE,
    cases: { histories: [dir] },
    client,
    connection,
    models: { scripts: { 'eval-bench': benchModel('eval-bench', MODEL_MS) } },
    concurrency: CONCURRENCY,
  });
  const evalMs = performance.now() - evalStarted;
  const loadEval = load();
  const liveMs = await runLive(client, connection, prompts, { modelMs: MODEL_MS });
  const loadLive = load();
  if (report.summary.changedCases !== 0 || report.summary.harnessAgreement !== 1)
    throw new Error(`the bench's evaluation found changes: ${JSON.stringify(report.summary)}`);
  const evalRate = (CASES / evalMs) * 1000;
  const liveRate = (CASES / liveMs) * 1000;
  console.log(
    table(
      ['', 'cases', 'seconds', 'cases/s', 'load (1 min)'],
      [
        [
          'cairn eval (baseline + candidate lane)',
          String(CASES),
          figure(evalMs / 1000),
          figure(evalRate, 2),
          `${loadBefore} → ${loadEval}`,
        ],
        ['re-run live with the tools', String(CASES), figure(liveMs / 1000), figure(liveRate, 2), loadLive],
        ['ratio (eval ÷ live)', '', '', `${figure(evalRate / liveRate, 2)}×`, ''],
      ],
    ),
  );

  // 2. Memory of a 1,000-case evaluation (model and tools instant: only the evaluation's own cost).
  await rm(dir, { recursive: true, force: true });
  const memoryDir = await mkdtemp(join(tmpdir(), 'cairn-eval-bench-'));
  const many = Array.from({ length: MEMORY_CASES }, (_, i) => `mem-${i}`);
  await runLive(client, connection, many, { modelMs: 0, dir: memoryDir });
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
} finally {
  await rm(dir, { recursive: true, force: true });
  await server.close();
}
