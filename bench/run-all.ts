/**
 * `npm run bench`: both benches on one server and one worker, as one compact report. The figures
 * are ratios against baselines run in this same process; nothing here asserts a time.
 */
import { benchHeader, startBenchEnv } from './bench-env.js';
import { historyEconomyReport, measureHistoryEconomy } from './history-economy.js';
import { measureOverhead, overheadReport } from './overhead.js';

const env = await startBenchEnv();
try {
  console.log(benchHeader(env));
  console.log(overheadReport(await measureOverhead(env)));
  console.log();
  console.log(historyEconomyReport(await measureHistoryEconomy(env)));
} finally {
  await env.close();
}
