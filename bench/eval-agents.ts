/**
 * The eval bench's agent (bench/eval.ts): three lookups a case, each a tool call that takes as long
 * as a real API call (`toolTiming.ms`), then an answer. Its own module, as a project's agents are:
 * the live re-run's worker reads it, and both eval modules import it. Workflow-safe.
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineTool } from '../shared/tools/define-tool.js';
import { benchRecord } from './bench-agent.js';

/** How long one lookup takes when it runs for real (a typical API call); bench/eval.ts sets it (`--tool-ms`). */
export const toolTiming = { ms: 150 };

export const lookup = defineTool({
  name: 'fetch_record',
  description: 'Fetch one customer record by id.',
  input: z.object({ id: z.string() }),
  sideEffects: 'idempotent',
  execute: async ({ id }) => {
    if (toolTiming.ms > 0) await new Promise((resolve) => setTimeout(resolve, toolTiming.ms));
    return benchRecord(id);
  },
});

export const evalBenchAgent = defineAgent({
  name: 'eval-bench',
  instructions: 'Fetch the three records of the case, then say you are done.',
  tools: [lookup],
});
