/**
 * Issue #12, worker sizing: what an undersized workflow cache costs. RUNS agentRun runs of TURNS
 * tool turns each, all started at once, on a worker whose cache holds every run and on one whose
 * cache holds a sixth of them; both run the same number of workflow tasks at once, so only the
 * cache differs. An evicted run is replayed from its whole history at its next workflow task.
 * Alone: `npx tsx bench/workflow-cache.ts`.
 */
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv, type BenchWorker } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import { figure, median, table } from './report.js';

export const RUNS = 60;
export const TURNS = 2;
/** Kept to one round (and a warm-up of WARMUP_RUNS runs per worker) so the bench takes well under a minute. */
export const ROUNDS = 1;
export const WARMUP_RUNS = 5;
/** Workflow tasks at once on both workers (the SDK caps it at maxCachedWorkflows anyway). */
export const WORKFLOW_TASKS = 10;
export const CACHES = [100, 10] as const;

/** temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT. */
const WORKFLOW_TASK_TIMED_OUT = 8;

interface Batch {
  readonly ms: number;
  /** Worker-process CPU (this process: the worker, and the client starting the runs). */
  readonly cpuMs: number;
  readonly timedOut: number;
}

async function batch(env: BenchEnv, worker: BenchWorker, count = RUNS): Promise<Batch> {
  const input = (model: string): AgentRunInput => ({ agent: benchAgent.name, prompt: BENCH_PROMPT, model });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const runs = await Promise.all(
    Array.from({ length: count }, () => worker.execute<AgentRunResult>('agentRun', toolTurnsScript(TURNS), input)),
  );
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  for (const { result } of runs)
    if (result.reason !== null || result.toolCalls !== TURNS)
      throw new Error(`a run did not make ${TURNS} tool calls: ${JSON.stringify(result)}`);
  let timedOut = 0;
  for (const { workflowId } of runs) {
    const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
    timedOut += (events ?? []).filter((e) => Number(e.eventType) === WORKFLOW_TASK_TIMED_OUT).length;
  }
  return { ms, cpuMs: (user + system) / 1_000, timedOut };
}

export interface CacheRow {
  readonly maxCachedWorkflows: number;
  readonly ms: number;
  readonly cpuMs: number;
  /** Summed over the rounds. */
  readonly timedOut: number;
}

export async function measureWorkflowCache(env: BenchEnv): Promise<CacheRow[]> {
  const workers = await Promise.all(
    CACHES.map((maxCachedWorkflows) =>
      env.startWorker({ maxCachedWorkflows, maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASKS }),
    ),
  );
  try {
    const samples = CACHES.map(() => [] as Batch[]);
    // A few runs on each first (loading the workflow bundle), then interleaved rounds.
    for (const worker of workers) await batch(env, worker, WARMUP_RUNS);
    for (let i = 0; i < ROUNDS; i++)
      for (const [w, worker] of workers.entries()) samples[w]!.push(await batch(env, worker));
    return CACHES.map((maxCachedWorkflows, w) => ({
      maxCachedWorkflows,
      ms: median(samples[w]!.map((b) => b.ms)),
      cpuMs: median(samples[w]!.map((b) => b.cpuMs)),
      timedOut: samples[w]!.reduce((sum, b) => sum + b.timedOut, 0),
    }));
  } finally {
    for (const worker of workers) await worker.close();
  }
}

export function workflowCacheReport(rows: readonly CacheRow[]): string {
  const full = rows.find((r) => r.maxCachedWorkflows >= RUNS)!;
  const header = [
    'maxCachedWorkflows',
    'wall ms',
    '× full cache',
    'worker CPU ms/run',
    'CPU × full',
    'workflow task timeouts',
  ];
  const lines = rows.map((r) => [
    figure(r.maxCachedWorkflows),
    figure(r.ms, 0),
    `${(r.ms / full.ms).toFixed(2)}×`,
    figure(r.cpuMs / RUNS),
    `${(r.cpuMs / full.cpuMs).toFixed(2)}×`,
    figure(r.timedOut),
  ]);
  return [
    `Workflow cache (issue #12): ${RUNS} agentRun runs of ${TURNS} tool turns started at once; ${WORKFLOW_TASKS} workflow tasks at a time; ${ROUNDS === 1 ? 'one round' : `median of ${ROUNDS} rounds`} after ${WARMUP_RUNS} warm-up runs.`,
    'A run evicted from the cache is replayed from its whole history at its next workflow task (docs/operations.md).',
    table(header, lines),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) => workflowCacheReport(await measureWorkflowCache(env)));
