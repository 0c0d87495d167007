/**
 * Issue #11, an unbounded run is bounded: one agentRun of T model turns (default 10,000), each
 * calling `fetch_record` once (~1 KB results), to completion. The context policy keeps the
 * transcript within its budget and the history budget hands over well before Temporal's
 * warnings, so every run of the continue-as-new chain stays small however long the whole run is.
 * Prints history bytes and events per run of the chain, and ms per model turn over the first and
 * the last 200 turns (from the run's own event stream, in workflow time). Not part of
 * `npm run bench` (it takes minutes): `npx tsx bench/long-run.ts [turns]`.
 */
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import { figure, table } from './report.js';

const WINDOW = 200;

export async function longRunReport(env: BenchEnv, turns = Number(process.argv[2] ?? 10_000)): Promise<string> {
  const at: number[] = [];
  let following: Promise<void> | undefined;
  const input = (model: string): AgentRunInput => ({
    agent: benchAgent.name,
    prompt: BENCH_PROMPT,
    model,
    policy: { maxTurns: turns + 1, maxToolCalls: turns },
  });
  const run = await env.run<AgentRunResult>('agentRun', toolTurnsScript(turns), input, {
    timeoutMs: 6 * 3_600_000,
    started: (workflowId) => {
      following = (async () => {
        for await (const event of new AgentRunHandle(env.client, workflowId).events({ types: ['model_turn'] }))
          at.push(event.at);
      })();
    },
  });
  await following;
  if (run.result.toolCalls !== turns)
    throw new Error(`The run made ${run.result.toolCalls} tool calls, not ${turns}: ${JSON.stringify(run.result)}`);
  const perTurn = (from: number, to: number) => (at[to]! - at[from]!) / (to - from);
  const start = perTurn(0, Math.min(WINDOW, at.length - 1));
  const end = perTurn(Math.max(0, at.length - 1 - WINDOW), at.length - 1);
  const biggest = Math.max(...run.perRun.map((r) => r.bytes));
  const rows = run.perRun.map((r, i) => [String(i + 1), figure(r.bytes), figure(r.events)]);
  const shown = rows.length > 12 ? [...rows.slice(0, 6), ['…', '', ''], ...rows.slice(-6)] : rows;
  return [
    `Long run (issue #11): ${figure(turns)} model turns, each with one ~1 KB tool result, one agentRun to completion in ${figure(run.ms / 1000, 1)} s.`,
    `${run.runs} runs in the continue-as-new chain (generation ${run.result.generation}); the biggest run's history: ${figure(biggest)} bytes (Temporal warns at 10,000,000); all runs: ${figure(run.bytes)} bytes, ${figure(run.events)} events.`,
    `ms per model turn (workflow time, model turn to model turn): first ${WINDOW} turns ${figure(start, 1)}, last ${WINDOW} turns ${figure(end, 1)} (end / start ${(end / start).toFixed(2)}×).`,
    table(['run', 'history bytes', 'events'], shown),
  ].join('\n');
}

await runAlone(import.meta.url, (env) => longRunReport(env));
