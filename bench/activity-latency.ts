/**
 * Issue #12, latency: what one activity round trip costs on the server the benches use — a bare
 * activity, the same as a local activity, Cairn's tool activity, a whole agentRun, and a short
 * durable timer (a planner back-off) — each as a ratio to the bare activity. Round trips are
 * timed in workflow time (workflow task start to workflow task start), so starting and ending a
 * run are left out. With the embedded server, the same figures on a second one with Temporal's
 * default dynamic config follow, for comparison. Medians of ITERATIONS runs after WARMUPS
 * discarded ones. Alone: `npx tsx bench/activity-latency.ts`.
 */
import { hasExternalServer } from '../runtime/connection.js';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { startBenchEnv, runAlone, type BenchEnv, type BenchWorker } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import {
  TIMER_MS,
  type ActivityLatencyInput,
  type ActivityLatencyResult,
  type LatencyKind,
} from './latency-workflow.js';
import { figure, median, table } from './report.js';

/** Activities per run (agentRun: tool turns, so 2 × CALLS + 1 activities). */
export const CALLS = 10;
/** Local activities complete inside one workflow task, where workflow time stands still: timed by wall clock, this many a run. */
export const LOCAL_CALLS = 50;
/** Timers per run: few, since each takes a second on a server with Temporal's defaults. */
export const TIMERS = 2;
/** Round trips made before the timed ones in each run, so the figures are the steady state (see ActivityLatencyInput). */
export const UNTIMED = 10;
export const WARMUPS = 1;
/** A round trip on a quiet machine moves by a third from run to run, so many runs, each kind in each. */
export const ITERATIONS = 15;
/** Runs on the default-config server, where this is the slow part. */
export const DEFAULT_SERVER_ITERATIONS = 3;

interface Measure {
  readonly label: string;
  /** Milliseconds per round trip, from one run. */
  run(env: BenchWorker, client: BenchEnv['client']): Promise<number>;
}

async function latencyRun(
  env: BenchWorker,
  kind: LatencyKind,
  calls: number,
  untimed = 0,
): Promise<{ ms: number; workflowMs: number }> {
  const { ms, result } = await env.execute<ActivityLatencyResult>(
    'activityLatency',
    null,
    (): ActivityLatencyInput => ({ kind, calls, untimed }),
  );
  if (result.calls !== calls) throw new Error(`${kind}: ${result.calls} of ${calls} calls succeeded`);
  return { ms, workflowMs: result.ms };
}

const inWorkflowTime = (label: string, kind: LatencyKind, calls: number): Measure => ({
  label,
  run: async (env) => (await latencyRun(env, kind, calls, kind === 'timer' ? 1 : UNTIMED)).workflowMs / calls,
});

const BARE = inWorkflowTime('bare activity', 'bare', CALLS);
const TOOL = inWorkflowTime('Cairn tool activity', 'cairn-tool', CALLS);
const TIMER = inWorkflowTime(`durable timer (sleep ${TIMER_MS} ms)`, 'timer', TIMERS);

/** The wall time of LOCAL_CALLS local activities less that of a run with none, per call. */
const LOCAL: Measure = {
  label: 'bare local activity',
  async run(env) {
    const empty = await latencyRun(env, 'bare-local', 0);
    const local = await latencyRun(env, 'bare-local', LOCAL_CALLS);
    return Math.max(0, local.ms - empty.ms) / LOCAL_CALLS;
  },
};

/** agentRun: CALLS model turns of one tool call each, then the answer; per activity, first to last workflow task. */
const AGENT_RUN: Measure = {
  label: 'agentRun, per activity',
  async run(env, client) {
    const input = (model: string): AgentRunInput => ({ agent: benchAgent.name, prompt: BENCH_PROMPT, model });
    const { workflowId, result } = await env.execute<AgentRunResult>('agentRun', toolTurnsScript(CALLS), input);
    if (result.reason !== null || result.toolCalls !== CALLS)
      throw new Error(`agentRun did not make ${CALLS} tool calls: ${JSON.stringify(result)}`);
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const started = events
      .filter((e) => Number(e.eventType) === WORKFLOW_TASK_STARTED)
      .map((e) => eventMs(e.eventTime));
    const activities = events.filter((e) => Number(e.eventType) === ACTIVITY_TASK_SCHEDULED).length;
    return (Math.max(...started) - Math.min(...started)) / activities;
  },
};

/** temporal.api.enums.v1.EventType values (@temporalio/proto is not one of Cairn's dependencies). */
const WORKFLOW_TASK_STARTED = 6;
const ACTIVITY_TASK_SCHEDULED = 10;

function eventMs(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!time) throw new Error('a history event without a time');
  return Number(time.seconds) * 1_000 + (time.nanos ?? 0) / 1e6;
}

export interface LatencyRow {
  /** Which dynamic config the server ran with. */
  readonly server: string;
  readonly what: string;
  /** Median milliseconds per round trip. */
  readonly ms: number;
  /** Median of each run's ratio to the bare activity's run beside it (a slow spell slows both). */
  readonly xBare: number;
}

async function measure(
  env: BenchEnv,
  server: string,
  measures: readonly Measure[],
  iterations: number,
): Promise<LatencyRow[]> {
  const samples = measures.map(() => [] as number[]);
  // Interleaved, so a slow spell of a shared machine hits every kind alike.
  for (let i = 0; i < WARMUPS + iterations; i++)
    for (const [m, measure] of measures.entries()) {
      const ms = await measure.run(env, env.client);
      if (i >= WARMUPS) samples[m]!.push(ms);
    }
  const bare = samples[measures.indexOf(BARE)]!;
  return measures.map((measure, m) => ({
    server,
    what: measure.label,
    ms: median(samples[m]!),
    xBare: median(samples[m]!.map((ms, i) => ms / bare[i]!)),
  }));
}

/** On `env`'s server: Cairn's dynamic config when it is the embedded one. */
export function measureActivityLatency(env: BenchEnv): Promise<LatencyRow[]> {
  return measure(env, hasExternalServer() ? 'your server' : 'Cairn', [BARE, LOCAL, TOOL, AGENT_RUN, TIMER], ITERATIONS);
}

/** The same on a second embedded server with Temporal's default dynamic config; nothing with a server of yours. */
export async function measureDefaultServerLatency(): Promise<LatencyRow[]> {
  if (hasExternalServer()) return [];
  const env = await startBenchEnv({ dynamicConfig: {} });
  try {
    return await measure(env, 'Temporal default', [BARE, TOOL, TIMER], DEFAULT_SERVER_ITERATIONS);
  } finally {
    await env.close();
  }
}

export function activityLatencyReport(rows: readonly LatencyRow[]): string {
  const cairn = (what: string) => rows.find((r) => r.server === 'Cairn' && r.what === what)?.ms;
  const header = ['dynamic config', 'round trip', 'ms', '× bare', 'default / Cairn'];
  const lines = rows.map((r) => {
    const fast = r.server === 'Temporal default' ? cairn(r.what) : undefined;
    return [r.server, r.what, figure(r.ms), `${r.xBare.toFixed(2)}×`, fast ? `${(r.ms / fast).toFixed(1)}×` : ''];
  });
  return [
    `Activity latency (issue #12): ${CALLS} activities one after the other per run after ${UNTIMED} untimed ones, ms per round trip in workflow time; median of ${ITERATIONS} runs after ${WARMUPS} warm-up (${DEFAULT_SERVER_ITERATIONS} on the default server).`,
    `× bare: the median of each run's ratio to the bare activity's run in the same round (every kind runs once a round).`,
    `Cairn = FAST_DEV_SERVER_CONFIG (runtime/embedded-server.ts), what every embedded server Cairn starts uses. agentRun: a model turn and a tool call a turn.`,
    `Local activity: wall time of ${LOCAL_CALLS} in one run less that of an empty run, per call. Timer: ${TIMERS} a run after an untimed one.`,
    table(header, lines),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) =>
  activityLatencyReport([...(await measureActivityLatency(env)), ...(await measureDefaultServerLatency())]),
);
