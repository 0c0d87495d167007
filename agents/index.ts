/** Every agent this project's workers run. Workflow-safe: the workflow bundle imports it. */
import type { AgentContract } from '../workflows/agent-run.js';
import { ordersAgent } from './orders/agent.js';

export const AGENTS: Readonly<Record<string, AgentContract>> = { orders: ordersAgent };

/** All tools of all agents, for the worker's tool activity. */
export const AGENT_TOOLS = Object.values(AGENTS).flatMap((agent) => agent.tools);
