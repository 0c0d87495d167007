/**
 * Issue #18, memory per cached run: N runs of TURNS tool turns started at once on one worker whose
 * cache holds them all; every run's second model call waits until all N have made one (so each
 * run is cached mid-run, with a tool result in its transcript), then the worker's RSS and heap are
 * read (after a GC) against what it held before, and the runs are let go. agentRun against the
 * plain agent loop (`transcript: 'query'`) on the same worker: memory per run, wall time from the
 * first start to the last result (runs are started 50 at a time), workflow-task timeouts. Alone:
 * `npx tsx bench/cached-run-memory.ts [N…]` (default 1000).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { AgentRunInput } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv, type BenchWorker } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import type { PlainAgentLoopInput } from './plain-agent-loop.js';
import { figure, table } from './report.js';

export const RUN_COUNTS = [1_000] as const;
export const TURNS = 3;
const MiB = 1024 * 1024;
/** Runs started at once. */
const START_WAVE = 50;
/** temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT. */
const WORKFLOW_TASK_TIMED_OUT = 8;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Memory after a full collection, twice (finalizers free more). */
async function settled(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed };
}

/** N scripted models whose second call waits until all N have been made. */
class Gate {
  #arrived = 0;
  #open!: () => void;
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));
  readonly #full: Promise<void>;
  #fill!: () => void;

  constructor(readonly size: number) {
    this.#full = new Promise((resolve) => (this.#fill = resolve));
  }

  model(): ModelClient {
    const scripted = new ScriptedModel('gated', toolTurnsScript(TURNS), { record: false });
    let calls = 0;
    return {
      generate: async (input: GenerateInput): Promise<ModelOutcome> => {
        if (++calls === 2) {
          if (++this.#arrived === this.size) this.#fill();
          await this.#opened;
        }
        return scripted.generate(input);
      },
    };
  }

  /** Every run waits at the gate. */
  get full(): Promise<void> {
    return this.#full;
  }

  get arrived(): number {
    return this.#arrived;
  }

  open(): void {
    this.#open();
  }
}

export interface MemoryRow {
  readonly workflow: string;
  readonly runs: number;
  readonly rssPerRun: number;
  readonly heapPerRun: number;
  readonly ms: number;
  readonly timedOut: number;
}

async function batch(
  env: BenchEnv,
  worker: BenchWorker,
  workflow: 'agentRun' | 'plainAgentLoop',
  runs: number,
): Promise<MemoryRow> {
  const before = await settled();
  const gate = new Gate(runs);
  const input =
    workflow === 'agentRun'
      ? (model: string): AgentRunInput => ({ agent: benchAgent.name, prompt: BENCH_PROMPT, model })
      : (model: string): PlainAgentLoopInput => ({ model, transcript: 'query' });
  const started = performance.now();
  // Started a wave at a time, each once the one before waits at the gate: a thousand start requests
  // at once time out on a busy dev server.
  const all: Promise<{ workflowId: string }>[] = [];
  while (all.length < runs) {
    const wave = Math.min(START_WAVE, runs - all.length);
    for (let i = 0; i < wave; i++) all.push(worker.execute(workflow, gate.model(), input, { timeoutMs: 1_800_000 }));
    while (gate.arrived < all.length) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await gate.full;
  const held = await settled();
  gate.open();
  const done = await Promise.all(all);
  const ms = performance.now() - started;
  let timedOut = 0;
  for (let i = 0; i < done.length; i += 50)
    for (const { events } of await Promise.all(
      done.slice(i, i + 50).map(({ workflowId }) => env.client.workflow.getHandle(workflowId).fetchHistory()),
    ))
      timedOut += (events ?? []).filter((e) => Number(e.eventType) === WORKFLOW_TASK_TIMED_OUT).length;
  return {
    workflow,
    runs,
    rssPerRun: (held.rss - before.rss) / runs,
    heapPerRun: (held.heap - before.heap) / runs,
    ms,
    timedOut,
  };
}

export async function measureCachedRunMemory(
  env: BenchEnv,
  counts: readonly number[] = RUN_COUNTS,
): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  for (const runs of counts) {
    // Every run cached and every model call of the batch in flight at once.
    const worker = await env.startWorker({
      maxCachedWorkflows: runs + 100,
      maxConcurrentActivityTaskExecutions: runs + 100,
    });
    try {
      for (const workflow of ['plainAgentLoop', 'agentRun'] as const) await batch(env, worker, workflow, 20); // warm-up: bundle loaded, code compiled
      for (const workflow of ['plainAgentLoop', 'agentRun'] as const)
        rows.push(await batch(env, worker, workflow, runs));
    } finally {
      await worker.close();
    }
  }
  return rows;
}

export function cachedRunMemoryReport(rows: readonly MemoryRow[]): string {
  const plain = (runs: number) => rows.find((r) => r.runs === runs && r.workflow === 'plainAgentLoop')!;
  const header = [
    'runs',
    'workflow',
    'RSS MiB/run',
    'heap MiB/run',
    '× plain (RSS)',
    'wall s',
    '× plain (wall)',
    'workflow task timeouts',
  ];
  const lines = rows.map((r) => [
    figure(r.runs),
    r.workflow,
    (r.rssPerRun / MiB).toFixed(3),
    (r.heapPerRun / MiB).toFixed(3),
    `${(r.rssPerRun / plain(r.runs).rssPerRun).toFixed(2)}×`,
    figure(r.ms / 1000, 1),
    `${(r.ms / plain(r.runs).ms).toFixed(2)}×`,
    figure(r.timedOut),
  ]);
  return [
    `Memory per cached run (issue #18): N runs of ${TURNS} tool turns at once on one worker caching them all; memory read (after a GC) when every run waits in its second model call, less the worker's before.`,
    "Heap = the main thread's V8 heap (transcripts read, activity state); RSS adds the workflow threads' contexts. Wall time: first start to last result.",
    table(header, lines),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) => {
  const counts = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  return cachedRunMemoryReport(await measureCachedRunMemory(env, counts.length > 0 ? counts : RUN_COUNTS));
});
