/** bench/tenants.ts's bundle: agentRun over the test agent (the inbox half) and the one-second agent (the fairness half). */
import { defineAgentRun } from '../workflows/agent-run.js';
import { testAgent } from '../test/fixtures/agents.js';
import { tenantsAgent } from './tenants-agent.js';

export const agentRun = defineAgentRun([testAgent, tenantsAgent]);
