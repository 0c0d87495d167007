/**
 * Issue #5, history economy: history bytes after T model turns, each calling `fetch_record` once
 * (~1 KB results), Cairn's agentRun against the naive design that resends the whole transcript as
 * the model activity's input every turn (bench/plain-agent-loop.ts, `transcript: 'input'`).
 * Cairn's model activity reads the transcript through a Query, so only what each turn produced
 * enters history: linear in T; the naive run's history grows with T². Sizes are deterministic,
 * so one run of each per T. agentRun runs without `continueAsNewAfterTurns`; if the server still
 * suggests continuing as new, the chain's runs are summed (the `runs` column says so).
 * Alone: `npx tsx bench/history-economy.ts`.
 */
import type { AgentRunInput, AgentRunResult } from '../workflows/messages.js';
import { BENCH_PROMPT, TOOL_RESULT_BYTES, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import type { HistoryStats } from './history-stats.js';
import type { PlainAgentLoopInput, PlainAgentLoopResult } from './plain-agent-loop.js';
import { figure, table } from './report.js';

export const TURN_COUNTS = [25, 50, 100] as const;

export interface EconomyRow {
  readonly turns: number;
  readonly cairn: HistoryStats;
  readonly naive: HistoryStats;
}

export async function measureHistoryEconomy(env: BenchEnv): Promise<EconomyRow[]> {
  const rows: EconomyRow[] = [];
  for (const turns of TURN_COUNTS) {
    const cairnInput = (model: string): AgentRunInput => ({ agent: benchAgent.name, prompt: BENCH_PROMPT, model });
    const cairn = await env.run<AgentRunResult>('agentRun', toolTurnsScript(turns), cairnInput);
    if (cairn.result.toolCalls !== turns || cairn.result.reason !== null) throw new Error(`agentRun did not make ${turns} tool calls: ${JSON.stringify(cairn.result)}`);
    const naiveInput = (model: string): PlainAgentLoopInput => ({ model, transcript: 'input' });
    const naive = await env.run<PlainAgentLoopResult>('plainAgentLoop', toolTurnsScript(turns), naiveInput);
    if (naive.result.toolCalls !== turns) throw new Error(`The naive loop did not make ${turns} tool calls: ${JSON.stringify(naive.result)}`);
    rows.push({ turns, cairn, naive });
  }
  return rows;
}

export function historyEconomyReport(rows: readonly EconomyRow[]): string {
  const header = ['turns', 'Cairn bytes', 'naive bytes', 'naive / Cairn', 'Cairn B/turn', 'naive B/turn', 'Cairn events', 'naive events', 'runs'];
  const lines = rows.map(({ turns, cairn, naive }) => [
    String(turns),
    figure(cairn.bytes),
    figure(naive.bytes),
    `${(naive.bytes / cairn.bytes).toFixed(1)}×`,
    figure(cairn.bytes / turns, 0),
    figure(naive.bytes / turns, 0),
    figure(cairn.events),
    figure(naive.events),
    `${cairn.runs}/${naive.runs}`,
  ]);
  return [
    `History economy (issue #5): T model turns, each with one ${TOOL_RESULT_BYTES}-byte tool result, then a text answer; history bytes as the server counts them.`,
    'naive = the same loop resending the whole transcript as the model activity input every turn. runs = Cairn/naive runs in the continue-as-new chain.',
    table(header, lines),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) => historyEconomyReport(await measureHistoryEconomy(env)));
