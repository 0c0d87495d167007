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
