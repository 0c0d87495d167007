/**
 * defineAgent: an agent's name, instructions, tools, model and policy in one checked value.
 * Workflow-safe, deterministic: the workflow imports agents to validate calls and plan.
 */
import type { PolicyOverrides } from './agent-policy.js';
import type { AnyTool } from './define-tool.js';
import { DefinitionError } from './definition-error.js';

export interface AgentConfig {
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  readonly tools: readonly AnyTool[];
  /** Which configured model to use, e.g. `openai:gpt-4.1-mini`; the run's default otherwise. */
  readonly model?: string;
  /** Overrides of the planner's default policy (budgets, caps, back-off); a run may override again. */
  readonly policy?: PolicyOverrides;
}

export interface Agent extends AgentConfig {
  readonly policy: PolicyOverrides;
}

/** Define an agent. Throws DefinitionError for an empty name or instructions, or two tools with one name. */
export function defineAgent(config: AgentConfig): Agent {
  if (typeof config.name !== 'string' || config.name.trim() === '') throw new DefinitionError('invalid_agent', 'An agent needs a name.');
  if (typeof config.instructions !== 'string' || config.instructions.trim() === '') {
    throw new DefinitionError('invalid_agent', `Agent ${config.name} needs instructions.`);
  }
  const seen = new Set<string>();
  for (const tool of config.tools) {
    if (seen.has(tool.name)) throw new DefinitionError('duplicate_tool_name', `Agent ${config.name} has two tools named ${tool.name}.`);
    seen.add(tool.name);
  }
  return Object.freeze({ ...config, tools: Object.freeze([...config.tools]), policy: config.policy ?? {} });
}

/** The agent's tool called `name`, if any. */
export function findTool(agent: Pick<AgentConfig, 'tools'>, name: string): AnyTool | undefined {
  return agent.tools.find((tool) => tool.name === name);
}
