/**
 * agentTool: another agent as a tool (seed 001's agent-backed tools). The model calls it like any
 * tool, with the task for the other agent; the run starts that agent as a child workflow (its own
 * history, linked in the Temporal UI) and the child's answer is the tool's result. A child that ends
 * early (a cap, a loop, a cancel) comes back as a failure whose cause chain is the child's own
 * errors. Workflow-safe, deterministic: the contract only; workflows/child-agents.ts runs it.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AGENT_TOOL, type Agent } from '../agent/define-agent.js';
import { defineTool, type AnyTool, type SideEffects, type ApprovalRule } from './define-tool.js';
import type { ReviewConfig } from './review-config.js';

/** The task an agent tool is called with; built on first use (shared/lazy-schema.ts). */
export const agentTaskSchema = lazySchema(() =>
  z.object({
    task: z
      .string()
      .trim()
      .min(1)
      .max(20_000)
      .describe('What the other agent should do, with everything it needs to know.'),
  }),
);
export type AgentTask = z.output<typeof agentTaskSchema>;

export interface AgentToolOptions {
  /** The tool's name; default: the agent's name in snake_case. */
  readonly name?: string;
  /** What the model reads: when to hand a task to this agent. */
  readonly description: string;
  /** Default `'once'`: a child run is never re-run by a back-off. */
  readonly sideEffects?: SideEffects;
  readonly approval?: ApprovalRule<AgentTask>;
  readonly review?: ReviewConfig;
}

/** A tool whose calls run `agent` as a child run. */
export function agentTool(agent: Agent, options: AgentToolOptions): AnyTool {
  const tool = defineTool({
    name:
      options.name ??
      agent.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, ''),
    description: options.description,
    input: agentTaskSchema,
    sideEffects: options.sideEffects ?? 'once',
    approval: options.approval ?? 'never',
    ...(options.review && { review: options.review }),
    execute: () => {
      throw new Error(`${agent.name} runs as a child workflow, never in an activity.`);
    },
  });
  return Object.freeze({ ...tool, [AGENT_TOOL]: agent });
}

export { agentOf } from '../agent/define-agent.js';
