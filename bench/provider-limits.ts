/**
 * Issue 27: a rate-limited provider and many runs at once. A local OpenAI-compatible HTTP provider
 * allows R requests per second (a sliding one-second window) and a number of tokens per minute,
 * and answers 429 with `retry-after: 1` past either. N runs start at once, each three model turns
 * (two `fetch_record` calls, then an answer). Three ways, each against a fresh provider:
 *
 * - `cairn`: agentRun, no flow control configured: refusals are waits (durable timers, full
 *   jitter over a capped exponential, the retry-after as the floor).
 * - `flow`: agentRun with flow control (Redis at 127.0.0.1:6379): calls wait for a permit before
 *   they are sent, at the provider's rate less `--headroom`.
 * - `plain`: a plain Temporal loop whose model activity throws on a 429, Temporal's default retry
 *   policy doing the waiting (1 s, doubling, up to 100 s).
 *
 * Prints, per N and way: runs answered, requests the provider accepted and refused, refused ÷
 * accepted, the wall time and the ideal (accepted ÷ R), and their ratio; on stderr, per way, where
 * the wall time went (`timeline`: the start, idle seconds, the tail, calls per second), and where a
 * run's time went, from its history (`run-time-split.ts`: on timers, waiting for a worker, in the
 * model activity, in workflow tasks), with the provider's time per call and this process's CPU.
 * Nothing asserts.
 *
 *   npx tsx bench/provider-limits.ts                          # N = 200 and 1,000, R = 10 (about 45 minutes)
 *   npx tsx bench/provider-limits.ts --runs 200 --ways cairn,flow
 *   npx tsx bench/provider-limits.ts --runs 1000 --ways flow --workers 2   # two worker processes share the limit
 *
 * The provider runs in a process of its own (`--provider in-process` puts it in the bench's, as
 * before 2026-11-28: its arrivals are then stamped when the busy worker's process gets the CPU).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveModel } from '../activities/model/resolve-model.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { startProvider, TOOL_TURNS, type ProviderStats } from './limited-provider.js';
import type { NaiveModelRequest } from './naive-model-activity.js';
import { describeSplit, runTimeSplit } from './run-time-split.js';

type Way = 'cairn' | 'flow' | 'plain';

interface Figures {
  readonly way: Way;
  readonly runs: number;
  readonly answered: number;
  readonly accepted: number;
  readonly refused: number;
  readonly wallMs: number;
  readonly idealMs: number;
  /** From the provider's first accepted call to its last, and from the start to its first. */
  readonly busyMs: number;
  readonly firstMs: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '200,1000' },
      rate: { type: 'string', default: '10' },
      tpm: { type: 'string', default: '1000000' },
      ways: { type: 'string', default: 'cairn,flow,plain' },
      headroom: { type: 'string', default: '0.95' },
      workers: { type: 'string', default: '1' },
      provider: { type: 'string', default: 'process' },
    },
  });
  const sizes = values.runs.split(',').map(Number);
  const rate = Number(values.rate);
  const tpm = Number(values.tpm);
  const headroom = Number(values.headroom);
  const ways = values.ways.split(',') as Way[];
  const workers = Math.max(1, Number(values.workers));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = (line: string) => console.error(line);
  const [server, bundle] = await Promise.all([
    startEmbeddedServer({ log }),
    bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'workflows.ts')),
  ]);
  const figures: Figures[] = [];
  try {
    for (const runs of sizes)
      for (const way of ways) {
        const f = await measure(way, runs);
        figures.push(f);
        log(
          `${way} × ${runs}: ${f.answered}/${f.runs} answered, ${f.accepted} accepted, ${f.refused} refused, wall ${(f.wallMs / 1000).toFixed(1)} s (ideal ${(f.idealMs / 1000).toFixed(1)} s; provider busy ${(f.busyMs / 1000).toFixed(1)} s, first call after ${(f.firstMs / 1000).toFixed(1)} s)`,
        );
      }
  } finally {
    await server.close();
  }
  console.log(
    `Provider limits: R = ${rate} requests/s, ${tpm} tokens/min, 429 with retry-after: 1; runs of ${TOOL_TURNS + 1} model turns; flow control at ${headroom} × R\n`,
  );
  console.log(
    '| runs | way | answered | accepted | refused | refused ÷ accepted | wall | ideal (accepted ÷ R) | wall ÷ ideal |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const names: Record<Way, string> = {
    cairn: 'Cairn, no flow control',
    flow: 'Cairn, flow control (Redis)',
    plain: 'plain Temporal loop, default retry',
  };
  for (const f of figures)
    console.log(
      `| ${f.runs} | ${names[f.way]} | ${f.answered} | ${f.accepted} | ${f.refused} | ${((100 * f.refused) / Math.max(1, f.accepted)).toFixed(1)}% | ${(f.wallMs / 1000).toFixed(1)} s | ${(f.idealMs / 1000).toFixed(1)} s | ${(f.wallMs / f.idealMs).toFixed(2)} |`,
    );

  /** `n` worker processes (bench/provider-limits-worker.ts) on `taskQueue`, once each polls. */
  async function otherWorkers(
    n: number,
    taskQueue: string,
    providerUrl: string,
    flow: unknown,
  ): Promise<ChildProcess[]> {
    if (n <= 0) return [];
    const file = join(tmpdir(), `cairn-bench-bundle-${randomUUID()}.js`);
    writeFileSync(file, bundle.code);
    return Promise.all(
      Array.from({ length: n }, async () => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(PACKAGE_ROOT, 'bench', 'provider-limits-worker.ts')],
          {
            cwd: PACKAGE_ROOT,
            env: {
              ...process.env,
              TEMPORAL_ADDRESS: server.address,
              TASK_QUEUE: taskQueue,
              BUNDLE: file,
              OPENAI_BASE_URL: providerUrl,
              FLOW: flow ? JSON.stringify(flow) : '',
            },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        await new Promise<void>((resolve, reject) => {
          child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
          child.once('exit', (code) => reject(new Error(`a worker process exited (${code})`)));
        });
        return child;
      }),
    );
  }

  async function measure(way: Way, runs: number): Promise<Figures> {
    const provider = await startProvider(rate, tpm, values.provider !== 'in-process');
    const env = { OPENAI_BASE_URL: provider.url, OPENAI_API_KEY: 'sk-bench' };
    const taskQueue = `limits-${randomUUID().slice(0, 8)}`;
    const flowControl = {
      limits: { openai: { requestsPerMinute: rate * 60 * headroom, tokensPerMinute: tpm * headroom } },
      keyPrefix: `cairn:bench:${randomUUID()}:`,
    };
    // More worker processes on the same queue, sharing the limit through the same Redis keys (not for the plain loop).
    const others =
      way === 'plain'
        ? []
        : await otherWorkers(workers - 1, taskQueue, provider.url, way === 'flow' ? flowControl : undefined);
    const worker = await createCairnWorker({
      connection: server.workerConnection,
      client: server.client,
      taskQueue,
      agents: [benchAgent],
      models: {
        env,
        ...(way === 'flow' && { flowControl }),
      },
      workflowBundle: { code: bundle.code },
      activities: {
        // The plain loop's model activity: a 429 is thrown, so Temporal's retry policy waits.
        async callModelOrThrow({ messages, toolNames, toolChoice, model }: NaiveModelRequest) {
          const tools = benchAgent.tools.filter((t) => toolNames.includes(t.name)).map((t) => t.spec);
          const outcome = await resolveModel(model, { env }).generate({
            messages,
            tools,
            toolChoice,
            signal: Context.current().cancellationSignal,
          });
          if (outcome.status === 'error' && outcome.error.code === 'rate_limited')
            throw ApplicationFailure.create({ message: outcome.error.message, type: 'RateLimited' });
          return outcome;
        },
      },
      worker: { maxCachedWorkflows: Math.max(1_000, runs + 100) },
    });
    const running = worker.run();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const startedAt = Date.now();
    const model = 'openai:bench-model';
    const handles = await Promise.all(
      Array.from({ length: runs }, (_, i) =>
        way === 'plain'
          ? server.client.workflow.start('plainRetryLoop', {
              taskQueue,
              workflowId: `${taskQueue}-${i}`,
              args: [{ model }],
            })
          : server.client.workflow.start('agentRun', {
              taskQueue,
              workflowId: `${taskQueue}-${i}`,
              args: [{ agent: benchAgent.name, prompt: BENCH_PROMPT, model } satisfies AgentRunInput],
            }),
      ),
    );
    const results = await Promise.all(
      handles.map((h) => h.result().catch((err: unknown) => ({ failed: String(err) }))),
    );
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    const answered = results.filter((r) =>
      way === 'plain'
        ? (r as { turns?: number }).turns === TOOL_TURNS + 1
        : (r as AgentRunResult).outcome?.status === 'answered',
    ).length;
    worker.shutdown();
    await running;
    for (const other of others) other.kill('SIGTERM');
    await Promise.all(others.map((other) => new Promise((resolve) => other.once('exit', resolve))));
    const seen = await provider.finish();
    log(timeline(seen, startedAt, startedAt + wallMs, rate));
    if (way !== 'plain') {
      log(
        describeSplit(
          await runTimeSplit(
            server.client,
            handles.map((h) => h.workflowId),
          ),
        ),
      );
      log(
        `  provider in flight ${(seen.inFlightMs / Math.max(1, seen.calls.length)).toFixed(1)} ms a call; this process's CPU (worker, client) ${((user + system) / 1e6).toFixed(1)} s of ${(wallMs / 1000).toFixed(1)} s wall (${((100 * (user + system)) / 1e3 / wallMs).toFixed(0)}% of a core)`,
      );
    }
    return {
      way,
      runs,
      answered,
      accepted: seen.accepted,
      refused: seen.refused,
      wallMs,
      idealMs: (seen.accepted / rate) * 1_000,
      busyMs: seen.lastAt - seen.firstAt,
      firstMs: seen.firstAt - startedAt,
    };
  }
}

/**
 * Where the wall time went: the start until the provider's first accepted call, the busy span's
 * idle capacity (seconds it could have taken R and took fewer), the tail (from the last second at
 * 90% of R or more to the last accepted call), and the end (last call to the last result). Then the
 * accepted calls per second (`+` for R or more) and, below, the refused ones.
 */
function timeline(provider: ProviderStats, startedAt: number, endAt: number, rate: number): string {
  const seconds = Math.ceil((endAt - startedAt) / 1_000);
  const ok = new Array<number>(seconds).fill(0);
  const no = new Array<number>(seconds).fill(0);
  const lastTurnFirst: number[] = [];
  for (const c of provider.calls) {
    const i = Math.min(seconds - 1, Math.max(0, Math.floor((c.at - startedAt) / 1_000)));
    (c.ok ? ok : no)[i]!++;
    if (c.ok && c.turn === TOOL_TURNS) lastTurnFirst.push(c.at);
  }
  const full = ok.reduce((last, n, i) => (n >= 0.9 * rate ? i : last), -1);
  const busy = (provider.lastAt - provider.firstAt) / 1_000;
  const idle = busy - provider.accepted / rate;
  const tail = (provider.lastAt - startedAt) / 1_000 - (full + 1);
  const end = (endAt - provider.lastAt) / 1_000;
  const digit = (n: number) => (n >= rate ? '+' : String(n));
  return [
    `  start → first call ${((provider.firstAt - startedAt) / 1_000).toFixed(1)} s; busy ${busy.toFixed(1)} s of which idle capacity ${idle.toFixed(1)} s; tail after the last full second (${full + 1} s) ${tail.toFixed(1)} s; last call → last result ${end.toFixed(1)} s; first final turn at ${lastTurnFirst.length ? ((Math.min(...lastTurnFirst) - startedAt) / 1_000).toFixed(1) : '-'} s`,
    `  accepted/s ${ok.map(digit).join('')}`,
    `  refused/s  ${no.map((n) => (n === 0 ? '.' : n > 9 ? '+' : String(n))).join('')}`,
  ].join('\n');
}

await main();
