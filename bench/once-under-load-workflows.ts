/** The workflow bundle's entry of bench/once-under-load.ts: agentRun over its two agents. */
import { defineAgentRun } from '../workflows/agent-run.js';
import { onceAgent, onceReconciledAgent } from './once-under-load-agent.js';

export const agentRun = defineAgentRun([onceAgent, onceReconciledAgent]);
