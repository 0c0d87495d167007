/**
 * The benches' one tool and agent. `fetch_record` returns a fixed-size JSON record (about 1 KB,
 * what a typical API lookup hands a model), deterministic, so history sizes compare run to run
 * and a transcript grows the way a real one does. Workflow-safe: the bench bundle imports it to
 * check calls; `execute` runs only in the tool activity.
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineTool } from '../shared/tools/define-tool.js';

/** The JSON length of every `fetch_record` result. */
export const TOOL_RESULT_BYTES = 1_024;

const FILLER = 'Order shipped from the Lyon hub on Monday; the carrier expects delivery on Thursday morning. ';

/** A record whose JSON is exactly TOOL_RESULT_BYTES long (ids are short ASCII). */
export function benchRecord(id: string): { id: string; status: string; notes: string } {
  const empty = { id, status: 'active', notes: '' };
  const room = TOOL_RESULT_BYTES - JSON.stringify(empty).length;
  return { ...empty, notes: FILLER.repeat(Math.ceil(room / FILLER.length)).slice(0, room) };
}

export const fetchRecord = defineTool({
  name: 'fetch_record',
  description: 'Fetch one customer record by id.',
  input: z.object({ id: z.string() }),
  execute: ({ id }) => benchRecord(id),
});

/** The id of call `index` of turn `turn`: every call distinct, as in a real run. */
export const recordId = (turn: number, index: number): string => `R-${turn}-${index}`;

export const BENCH_PROMPT = 'Fetch the records, then say you are done.';

export const benchAgent = defineAgent({
  name: 'bench',
  instructions: 'You are a benchmark agent: fetch the records you are asked for, then answer.',
  tools: [fetchRecord],
  // The bench's scripts decide how long a run is, not the planner's default caps (16 turns).
  policy: { maxTurns: 10_000, maxToolCalls: 10_000 },
});
