/**
 * The bench bundle's entry: the real agentRun over the bench agent, and the baselines it is
 * measured against, so all of them run on one worker, one server, one process.
 */
import { defineAgentRun } from '../workflows/agent-run.js';
import { benchAgent } from './bench-agent.js';

export const agentRun = defineAgentRun([benchAgent]);
export { directToolCalls } from './direct-tool-calls.js';
export { plainAgentLoop } from './plain-agent-loop.js';
export { activityLatency } from './latency-workflow.js';
export { plainRetryLoop } from './plain-retry-loop.js';
