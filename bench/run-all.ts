/**
 * `npm run bench`: every bench on one server and one worker (the latency bench adds a second
 * server with Temporal's default dynamic config; the cache and memory benches workers of their own), as one
 * compact report. The figures are ratios against baselines run in this same process; nothing
 * here asserts a time.
 */
import { activityLatencyReport, measureActivityLatency, measureDefaultServerLatency } from './activity-latency.js';
import { benchHeader, startBenchEnv } from './bench-env.js';
import { historyEconomyReport, measureHistoryEconomy } from './history-economy.js';
import { measureOverhead, overheadReport } from './overhead.js';
import { measureWorkflowCache, workflowCacheReport } from './workflow-cache.js';
import { cachedRunMemoryReport, measureCachedRunMemory } from './cached-run-memory.js';

const USAGE = `npm run bench [-- --help]

Runs every bench on one embedded dev server and prints one report of ratios against baselines
measured in the same run (docs/bench.md): activity latency, overhead, history economy, the workflow
cache and cached-run memory. It takes no options; the cluster bench (npm run bench:cluster) and the
evaluation bench (npm run bench:eval) have their own.`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
if (args.length > 0) {
  console.error(`bench/run-all.ts: it takes no options, got ${args.join(' ')} (--help says what it runs)`);
  process.exit(2);
}

const env = await startBenchEnv();
try {
  console.log(benchHeader(env));
  console.log(
    activityLatencyReport([...(await measureActivityLatency(env)), ...(await measureDefaultServerLatency())]),
  );
  console.log();
  console.log(overheadReport(await measureOverhead(env)));
  console.log();
  console.log(historyEconomyReport(await measureHistoryEconomy(env)));
  console.log();
  console.log(workflowCacheReport(await measureWorkflowCache(env)));
  console.log();
  console.log(cachedRunMemoryReport(await measureCachedRunMemory(env)));
} finally {
  await env.close();
}
