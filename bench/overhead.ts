/**
 * Issue #4, Cairn's overhead: N successful tool calls through the real agentRun (scripted model)
 * against the same calls made straight from a workflow, same server, same worker, same process.
 * Two shapes: N model turns of one call each, and one turn asking for a batch of N parallel calls.
 * A third workflow, a plain agent loop over the same model and tool activities, splits the gap:
 * agentRun / plain loop is what Cairn's own workflow code costs (planner, argument checks, UI
 * summaries and details); plain loop / direct is what the model turns themselves cost.
 * Medians of ITERATIONS runs after WARMUPS discarded ones. Alone: `npx tsx bench/overhead.ts`.
 */
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, TOOL_RESULT_BYTES, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv, type BenchRun } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import type { DirectToolCallsInput } from './direct-tool-calls.js';
import type { PlainAgentLoopInput, PlainAgentLoopResult } from './plain-agent-loop.js';
import { figure, median, table } from './report.js';

export const TOOL_CALLS = 10;
export const WARMUPS = 1;
export const ITERATIONS = 5;

type Shape = 'sequential' | 'parallel';
const SHAPES: readonly Shape[] = ['sequential', 'parallel'];

/** N turns of one call, or one turn of N calls; then the text answer. */
const script = (shape: Shape) =>
  shape === 'sequential' ? toolTurnsScript(TOOL_CALLS, 1) : toolTurnsScript(1, TOOL_CALLS);

/** Each workflow under test: how to run it, and how many tool calls succeeded (checked, so a broken run is never timed). */
const WORKFLOWS: readonly {
  label: string;
  run(env: BenchEnv, shape: Shape): Promise<{ run: BenchRun<unknown>; toolCalls: number }>;
}[] = [
  {
    label: 'agentRun',
    async run(env, shape) {
      const input = (model: string): AgentRunInput => ({ agent: benchAgent.name, prompt: BENCH_PROMPT, model });
      const run = await env.run<AgentRunResult>('agentRun', script(shape), input);
      return { run, toolCalls: run.result.reason === null ? run.result.toolCalls : -1 };
    },
  },
  {
    label: 'plain agent loop',
    async run(env, shape) {
      const input = (model: string): PlainAgentLoopInput => ({ model, transcript: 'query' });
      const run = await env.run<PlainAgentLoopResult>('plainAgentLoop', script(shape), input);
      return { run, toolCalls: run.result.toolCalls };
    },
  },
  {
    label: 'direct runTool',
    async run(env, shape) {
      const input = (): DirectToolCallsInput => ({ calls: TOOL_CALLS, parallel: shape === 'parallel' });
      const run = await env.run<number>('directToolCalls', null, input);
      return { run, toolCalls: run.result };
    },
  },
];

/** Medians per run of one workflow in one shape. */
export interface OverheadRow {
  readonly shape: Shape;
  readonly workflow: string;
  readonly ms: number;
  readonly events: number;
  readonly bytes: number;
}

export async function measureOverhead(env: BenchEnv): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  for (const shape of SHAPES) {
    const samples = WORKFLOWS.map(() => [] as BenchRun<unknown>[]);
    // Interleaved, so a slow spell of a shared machine hits every workflow alike.
    for (let i = 0; i < WARMUPS + ITERATIONS; i++) {
      for (const [w, workflow] of WORKFLOWS.entries()) {
        const { run, toolCalls } = await workflow.run(env, shape);
        if (toolCalls !== TOOL_CALLS)
          throw new Error(
            `${workflow.label} (${shape}) made ${toolCalls} successful tool calls, not ${TOOL_CALLS}: ${JSON.stringify(run.result)}`,
          );
        if (i >= WARMUPS) samples[w]!.push(run);
      }
    }
    for (const [w, workflow] of WORKFLOWS.entries()) {
      const runs = samples[w]!;
      rows.push({
        shape,
        workflow: workflow.label,
        ms: median(runs.map((r) => r.ms)),
        events: median(runs.map((r) => r.events)),
        bytes: median(runs.map((r) => r.bytes)),
      });
    }
  }
  return rows;
}

export function overheadReport(rows: readonly OverheadRow[]): string {
  const direct = (shape: Shape) => rows.find((r) => r.shape === shape && r.workflow === 'direct runTool')!;
  const header = ['shape', 'workflow', 'ms/run', '× direct', 'events/call', 'bytes/call'];
  const lines = rows.map((r) => [
    r.shape,
    r.workflow,
    figure(r.ms, 0),
    `${(r.ms / direct(r.shape).ms).toFixed(2)}×`,
    figure(r.events / TOOL_CALLS),
    figure(r.bytes / TOOL_CALLS),
  ]);
  return [
    `Overhead (issue #4): ${TOOL_CALLS} successful fetch_record calls per run (${TOOL_RESULT_BYTES}-byte results); median of ${ITERATIONS} runs after ${WARMUPS} warm-up.`,
    'sequential = one call per model turn; parallel = one turn asking for all of them. Wall time is start request to result.',
    table(header, lines),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) => overheadReport(await measureOverhead(env)));
