/**
 * Checks an `AgentRunInput` as a client sent it, before the run uses any of it: a missing or
 * mistyped field, an unknown key, or a policy the planner cannot use is a problem named by field.
 * The typed client checks the same before it starts a run; the workflow checks again, so a run
 * started by any client ends at once with a clear failure instead of misbehaving later.
 * Workflow-safe, deterministic.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import type { Agent } from '../shared/agent/define-agent.js';
import type { AgentRunInput } from './contract/agent-run.js';
import { policyOverridesSchema } from '../shared/agent/agent-policy.js';
import { lazySchema } from '../shared/lazy-schema.js';
import { TENANT_ID } from './contract/search-attributes.js';
import { summariseIssues, toFieldIssues } from '../shared/guards/zod-issues.js';
import { SNAPSHOT_DIGEST, type CheckedWorkspaceConfig } from '../shared/workspace/workspace-config.js';

/** The longest prompt a run accepts (characters); longer text belongs in a tool the agent can read. */
export const MAX_PROMPT_CHARS = 200_000;

// Built on first use, once per workflow thread (shared/lazy-schema.ts): keep `.describe()` out of it.
const runInputSchema = lazySchema(
  () =>
    z.strictObject({
      agent: z.string().min(1).max(200),
      prompt: z.string().trim().min(1).max(MAX_PROMPT_CHARS),
      model: z.string().min(1).max(500).optional(),
      policy: policyOverridesSchema.optional(),
      searchAttributes: z.boolean().optional(),
      agentVersionAttribute: z.boolean().optional(),
      continueAsNewAfterTurns: z.number().int().min(0).optional(),
      tenant: z.string().regex(TENANT_ID).optional(),
      user: z.string().min(1).max(200).optional(),
      depth: z.number().int().min(0).max(64).optional(),
      workspace: z.strictObject({ snapshot: z.string().regex(SNAPSHOT_DIGEST) }).optional(),
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
    }),
  { sharedAs: 'cairn.runInput' },
);

/** What is wrong with `input`, in one sentence; undefined when it can start a run. */
export function runInputProblem(input: unknown): string | undefined {
  const checked = runInputSchema.safeParse(input);
  if (checked.success) return undefined;
  return `Invalid run input: ${summariseIssues(toFieldIssues(checked.error.issues, input))}.`;
}

/**
 * The agent a run's input names, the model it runs with (the input's, else the agent's) and its
 * workspace (started from the input's snapshot, else as the agent says); a non-retryable failure —
 * `invalid_run_input`, `unknown_agent`, `no_model` — when there is none.
 */
export function runAgent(
  input: AgentRunInput,
  agents: ReadonlyMap<string, Agent>,
): { readonly agent: Agent; readonly model: string; readonly workspace?: CheckedWorkspaceConfig | undefined } {
  const problem = runInputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(problem, 'invalid_run_input');
  const agent = agents.get(input.agent);
  if (!agent)
    throw ApplicationFailure.nonRetryable(
      `Unknown agent "${input.agent}". Known: ${[...agents.keys()].join(', ')}`,
      'unknown_agent',
    );
  const model = input.model ?? agent.model;
  if (!model)
    throw ApplicationFailure.nonRetryable(
      `No model for agent "${agent.name}": name one in its definition (defineAgent({ model: 'openai:gpt-4.1-mini' })) or in the run's input (model).`,
      'no_model',
    );
  if (input.workspace && !agent.workspace)
    throw ApplicationFailure.nonRetryable(
      `Invalid run input: workspace: agent "${agent.name}" has no workspace to start from a snapshot.`,
      'invalid_run_input',
    );
  const workspace =
    input.workspace && agent.workspace
      ? { ...agent.workspace, from: { snapshot: input.workspace.snapshot } }
      : agent.workspace;
  return { agent, model, workspace };
}
