/** The workflow bundle's entry: `agentRun` over this project's agents. */
import { AGENTS } from '../agents/index.js';
import { defineAgentRun } from './agent-run.js';

export const agentRun = defineAgentRun(AGENTS);
export { defineAgentRun } from './agent-run.js';
export * from './messages.js';
