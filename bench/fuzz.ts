/**
 * Issue #11, the larger fuzz run: test/fuzz.test.ts at scale. A model client answers with the
 * seeded catalogue of well-formed, malformed and shape-breaking outcomes
 * (test/support/model-outcomes.ts) for T model turns (default 20,000) over runs of the bench
 * agent, 16 at a time. Prints how many turns, how many outcomes were refused at the boundary,
 * how many reached the planner unstructured (must be 0) and how many workflow tasks failed
 * (must be 0), with turns per second. Not part of `npm run bench` (minutes):
 * `npx tsx bench/fuzz.ts [turns] [seed]`.
 */
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { fuzzModel } from '../test/support/model-outcomes.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv } from './bench-env.js';
import { figure } from './report.js';

const WAVE = 16;
const TURNS_PER_RUN = 30;

export async function fuzzReport(
  env: BenchEnv,
  turns = Number(process.argv[2] ?? 20_000),
  seed = Number(process.argv[3] ?? 20261123),
): Promise<string> {
  const fuzz = fuzzModel(seed, {
    toolNames: [...benchAgent.tools.map((t) => t.name), 'no_such_tool'],
    turnsPerRun: TURNS_PER_RUN,
  });
  const policy = {
    maxTurns: 60,
    maxToolCalls: 1_000,
    maxModelRetries: 60,
    maxNudges: 60,
    maxConsecutiveFailedBatches: 60,
    onLoop: 'finalize' as const,
    maxRepairsPerTool: 60,
  };
  const started = performance.now();
  const runs: string[] = [];
  while (fuzz.generated.length < turns) {
    const wave = await Promise.all(
      Array.from({ length: WAVE }, () =>
        env.execute('agentRun', fuzz.client, (model) => ({
          agent: benchAgent.name,
          prompt: BENCH_PROMPT,
          model,
          policy,
        })),
      ),
    );
    runs.push(...wave.map((r) => r.workflowId));
  }
  const seconds = (performance.now() - started) / 1000;
  let seen = 0;
  let malformed = 0;
  let failedTasks = 0;
  for (const workflowId of runs) {
    const run = new AgentRunHandle(env.client, workflowId);
    for await (const event of run.events({ types: ['model_turn'] })) {
      if (event.type !== 'model_turn') continue;
      seen++;
      if (event.error?.code === 'malformed_model_output') malformed++;
    }
    const history = await run.workflow.fetchHistory();
    failedTasks += (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length;
  }
  const expectedMalformed = fuzz.generated.filter((g) => g.expect === 'malformed').length;
  const unstructured = Math.abs(fuzz.generated.length - seen) + Math.abs(expectedMalformed - malformed);
  return [
    `Fuzzed model turns (issue #11, seed ${seed}): ${figure(seen)} turns in ${figure(runs.length)} runs, ${figure(seconds, 1)} s (${figure(seen / seconds, 1)} turns/s).`,
    `  shape-breaking or oversize outcomes refused at the boundary as malformed_model_output: ${figure(malformed)} (${figure((100 * malformed) / Math.max(seen, 1), 1)} %)`,
    `  outcomes that reached the planner unstructured or uncounted: ${unstructured}`,
    `  workflow tasks failed: ${failedTasks}`,
  ].join('\n');
}

await runAlone(import.meta.url, (env) => fuzzReport(env));
