/**
 * The second build of bench/cluster.ts's agent, deployed mid-load through Worker Deployment
 * Versioning: a changed prompt (the agent's instructions, which the workflow writes into every
 * new run's transcript, so this bundle would not replay a first-build run) and the same tools.
 * Its runs answer "v2: …" (bench/cluster-worker.ts's model reads the prompt), so the bench can
 * tell which build ran each run. The plain loop rides along unchanged.
 */
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineAgentRun } from '../workflows/agent-run.js';
import { benchAgent } from './bench-agent.js';

/** What the second build's instructions end with. */
export const V2_MARK = '(build 2)';

export const benchAgentV2 = defineAgent({ ...benchAgent, instructions: `${benchAgent.instructions} ${V2_MARK}` });

export const agentRun = defineAgentRun([benchAgentV2]);
export { plainAgentLoop } from './plain-agent-loop.js';
