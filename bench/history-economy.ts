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
import { hasExternalServer } from '../runtime/connection.js';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { BENCH_PROMPT, TOOL_RESULT_BYTES, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import { historyBreakdown, historyBreakdownReport, type HistoryBreakdown } from './history-breakdown.js';
import { chainEvents, type HistoryStats } from './history-stats.js';
import type { PlainAgentLoopInput, PlainAgentLoopResult } from './plain-agent-loop.js';
import { figure, table } from './report.js';

export const TURN_COUNTS = [25, 50, 100] as const;

export interface EconomyRow {
  readonly turns: number;
  readonly cairn: HistoryStats;
  readonly naive: HistoryStats;
}

export interface HistoryEconomy {
  readonly rows: readonly EconomyRow[];
  /** Where the bytes of the longest Cairn run went. */
  readonly breakdown: HistoryBreakdown;
}

export async function measureHistoryEconomy(env: BenchEnv): Promise<HistoryEconomy> {
  const rows: EconomyRow[] = [];
  let breakdown: HistoryBreakdown | undefined;
  for (const turns of TURN_COUNTS) {
    // With Cairn's search attributes, as CairnClient starts runs where the server has them (the embedded one does).
    const cairnInput = (model: string): AgentRunInput => ({
      agent: benchAgent.name,
      prompt: BENCH_PROMPT,
      model,
      searchAttributes: !hasExternalServer(),
    });
    const cairn = await env.run<AgentRunResult>('agentRun', toolTurnsScript(turns), cairnInput);
    if (cairn.result.toolCalls !== turns || cairn.result.reason !== null)
      throw new Error(`agentRun did not make ${turns} tool calls: ${JSON.stringify(cairn.result)}`);
    const naiveInput = (model: string): PlainAgentLoopInput => ({ model, transcript: 'input' });
    const naive = await env.run<PlainAgentLoopResult>('plainAgentLoop', toolTurnsScript(turns), naiveInput);
    if (naive.result.toolCalls !== turns)
      throw new Error(`The naive loop did not make ${turns} tool calls: ${JSON.stringify(naive.result)}`);
    rows.push({ turns, cairn, naive });
    if (turns === TURN_COUNTS.at(-1))
      breakdown = historyBreakdown(await chainEvents(env.client, cairn.workflowId, cairn.firstRunId));
  }
  return { rows, breakdown: breakdown! };
}

export function historyEconomyReport({ rows, breakdown }: HistoryEconomy): string {
  const longest = rows.at(-1)!;
  const header = [
    'turns',
    'Cairn bytes',
    'naive bytes',
    'naive / Cairn',
    'Cairn B/turn',
    'naive B/turn',
    'Cairn events',
    'naive events',
    'runs',
  ];
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
    '',
    `Where the ${figure(longest.cairn.bytes / longest.turns, 0)} B/turn of the ${longest.turns}-turn agentRun go (events encoded as the server stores them; a part is what its events would lose without it):`,
    historyBreakdownReport(breakdown, longest.turns),
  ].join('\n');
}

await runAlone(import.meta.url, async (env) => historyEconomyReport(await measureHistoryEconomy(env)));
