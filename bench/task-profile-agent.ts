/**
 * The agent, tools and script of bench/workflow-task-profile.ts (issue 52): one run of each task
 * kind a real run has (constants in bench/task-profile-shape.ts). Turn 1 asks for a batch of 3 calls, two `fetch_record` and a
 * `schedule_delivery` without its window, which asks a person; turn 2, after the answer, fetches one
 * more record; the run then continues as new (after 2 turns) and its continuation's turn 3 answers.
 * Workflow-safe: the bench's bundle imports the agent and the tools to check calls; `execute` runs
 * only in the tool activity. The script is the worker's (bench/task-profile-worker.ts).
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { defineTool } from '../shared/tools/define-tool.js';
import { fetchRecord } from './bench-agent.js';
import { PROFILE_AGENT, PROFILE_INSTRUCTIONS, PROFILE_TOOL_NAMES } from './task-profile-shape.js';

/** Needs a delivery window only a person can give: without it, a failure that asks them. */
export const scheduleDelivery = defineTool({
  name: PROFILE_TOOL_NAMES[1],
  description: 'Schedule the delivery of one record.',
  input: z.object({ id: z.string(), window: z.enum(['morning', 'afternoon']).optional() }),
  execute: ({ id, window }) => {
    if (!window)
      throw ToolFailure.invalidArguments('A delivery window is required.', {
        missingFields: ['window'],
        clarifyingQuestion: 'Which delivery window suits you: morning or afternoon?',
      });
    return { id, window, scheduled: true };
  },
});

export const profileAgent = defineAgent({
  name: PROFILE_AGENT,
  instructions: PROFILE_INSTRUCTIONS,
  tools: [fetchRecord, scheduleDelivery],
  policy: { maxTurns: 100, maxToolCalls: 100 },
});
