/**
 * The eval bench's agent and evaluation (bench/eval.ts): three lookups a case, each a tool call
 * that takes as long as a real API call (TOOL_MS), then an answer. The candidate is the same
 * scripted model, so every case replays cleanly. Workflow-safe: `runEval` bundles it.
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineEval } from '../shared/eval/define-eval.js';
import { defineTool } from '../shared/tools/define-tool.js';
import { benchRecord } from './bench-agent.js';

/** How long one lookup takes when it runs for real (a typical API call). */
export const TOOL_MS = 150;

export const lookup = defineTool({
  name: 'fetch_record',
  description: 'Fetch one customer record by id.',
  input: z.object({ id: z.string() }),
  sideEffects: 'idempotent',
  execute: async ({ id }) => {
    await new Promise((resolve) => setTimeout(resolve, TOOL_MS));
    return benchRecord(id);
  },
});

export const evalBenchAgent = defineAgent({
  name: 'eval-bench',
  instructions: 'Fetch the three records of the case, then say you are done.',
  tools: [lookup],
});

export default defineEval({
  agent: evalBenchAgent,
  candidate: { name: 'same model', model: 'scripted:eval-bench' },
  // bench/eval.ts passes the folder it recorded into.
  cases: { histories: ['./recorded'] },
  concurrency: 16,
});
