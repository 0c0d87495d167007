/**
 * The fairness half of bench/tenants.ts: an agent whose one tool takes a second (a slow API), so
 * a tenant's backlog keeps the worker's activity slots busy. Workflow-safe: the bundle imports it
 * to check calls; `execute` runs only in the tool activity.
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineTool } from '../shared/tools/define-tool.js';

export const TOOL_MS = 1_000;

export const oneSecond = defineTool({
  name: 'one_second',
  description: 'Does one second of work.',
  input: z.object({ job: z.string() }),
  execute: async ({ job }) => {
    await new Promise((r) => setTimeout(r, TOOL_MS));
    return { job, done: true };
  },
});

export const tenantsAgent = defineAgent({
  name: 'tenants',
  instructions: 'Do the job you are given, then say it is done.',
  tools: [oneSecond],
});
