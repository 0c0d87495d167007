/**
 * Checks an `AgentRunInput` as a client sent it, before the run uses any of it: a missing or
 * mistyped field, an unknown key, or a policy the planner cannot use is a problem named by field.
 * The typed client checks the same before it starts a run; the workflow checks again, so a run
 * started by any client ends at once with a clear failure instead of misbehaving later.
 * Workflow-safe, deterministic.
 */
import { z } from 'zod';
import { policyOverridesSchema } from '../shared/agent/agent-policy.js';
import { TENANT_ID } from './contract/search-attributes.js';
import { summariseIssues, toFieldIssues } from '../shared/guards/zod-issues.js';

/** The longest prompt a run accepts (characters); longer text belongs in a tool the agent can read. */
export const MAX_PROMPT_CHARS = 200_000;

const runInputSchema = z.strictObject({
  agent: z.string().min(1).max(200),
  prompt: z.string().trim().min(1).max(MAX_PROMPT_CHARS),
  model: z.string().min(1).max(500).optional(),
  policy: policyOverridesSchema.optional(),
  searchAttributes: z.boolean().optional(),
  continueAsNewAfterTurns: z.number().int().min(0).optional(),
  tenant: z.string().regex(TENANT_ID).optional(),
  user: z.string().min(1).max(200).optional(),
  depth: z.number().int().min(0).max(64).optional(),
  // Written by the run itself when it continues as new; only its outline is checked here.
  carried: z
    .looseObject({
      state: z.looseObject({ turn: z.number(), phase: z.string() }),
      step: z.looseObject({ type: z.string() }),
      transcript: z.array(z.unknown()),
      generation: z.number().int().min(0),
      mcp: z
        .array(z.looseObject({ server: z.string() }))
        .max(64)
        .optional(),
    })
    .optional(),
});

/** What is wrong with `input`, in one sentence; undefined when it can start a run. */
export function runInputProblem(input: unknown): string | undefined {
  const checked = runInputSchema.safeParse(input);
  if (checked.success) return undefined;
  return `Invalid run input: ${summariseIssues(toFieldIssues(checked.error.issues, input))}.`;
}
