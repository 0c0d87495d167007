/** Every agent this project's workers run. Workflow-safe: the workflow bundle imports it. */
import type { Agent } from '../shared/define-agent.js';
import { ordersAgent } from './orders/agent.js';

export const AGENTS: readonly Agent[] = [ordersAgent];

/** All tools of all agents, for the worker's tool activity. */
export const AGENT_TOOLS = AGENTS.flatMap((agent) => agent.tools);
