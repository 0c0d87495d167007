/**
 * defineAgent: an agent's name, instructions, tools, model and policy in one checked value.
 * Workflow-safe, deterministic: the workflow imports agents to validate calls and plan.
 */
import { policyOverridesSchema, type PolicyOverrides } from './agent-policy.js';
import { summariseIssues, toFieldIssues } from '../guards/zod-issues.js';
import type { AnyTool } from '../tools/define-tool.js';
import { DefinitionError } from '../failures/definition-error.js';
import type { McpServer } from '../mcp/mcp-server.js';
import {
  AGENT_VERSIONINGS,
  isAgentVersioning,
  isUpgradePoint,
  UPGRADE_POINTS,
  type AgentVersioning,
  type UpgradePoint,
} from './versioning.js';
import {
  checkWorkspaceConfig,
  type CheckedWorkspaceConfig,
  type WorkspaceConfig,
} from '../workspace/workspace-config.js';

export interface AgentConfig {
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  readonly tools: readonly AnyTool[];
  /** MCP servers whose tools the agent gets besides `tools` (shared/mcp/mcp-server.ts), listed when a run starts. */
  readonly mcpServers?: readonly McpServer[];
  /** Which configured model to use, e.g. `openai:gpt-4.1-mini`; the run's default otherwise. */
  readonly model?: string;
  /** Overrides of the planner's default policy (budgets, caps, back-off); a run may override again. */
  readonly policy?: PolicyOverrides;
  /**
   * Under Worker Deployment Versioning (docs/upgrades.md): `pinned` runs stay on the build they
   * started on; `auto-upgrade` runs move to the current build at a safe point (`upgradeAt`), by
   * continue-as-new onto it. Default: the worker's (`cairn worker --versioning`). Ignored by a
   * worker that is not versioned.
   */
  readonly versioning?: AgentVersioning;
  /**
   * Where an `auto-upgrade` run moves to a newer build: `person` (default) before it waits for a
   * person or takes a person's new message; `turn` also before any model turn. Never between a
   * tool call and its result.
   */
  readonly upgradeAt?: UpgradePoint;
  /**
   * The run's workspace (docs/workspaces.md): files and a sandbox for its workspace tools, kept
   * as snapshots in the run store. An agent with a workspace tool and no `workspace` starts empty.
   */
  readonly workspace?: WorkspaceConfig;
}

const AGENT = Symbol.for('cairn.Agent');
/** Where an agent tool (shared/tools/agent-tool.ts) keeps the agent it runs; here, so agents are found without importing tools back. */
export const AGENT_TOOL = Symbol.for('cairn.AgentTool');

export interface Agent extends Omit<AgentConfig, 'workspace'> {
  readonly policy: PolicyOverrides;
  readonly mcpServers: readonly McpServer[];
  /** With its defaults; absent when the agent has no workspace tool and declared none. */
  readonly workspace?: CheckedWorkspaceConfig;
}

/** True for a value `defineAgent` returned, from any copy of this module. */
export function isAgent(value: unknown): value is Agent {
  return typeof value === 'object' && value !== null && (value as { [AGENT]?: unknown })[AGENT] === true;
}

/** Define an agent. Throws DefinitionError for an empty name or instructions, or two tools with one name. */
export function defineAgent(config: AgentConfig): Agent {
  if (typeof config.name !== 'string' || config.name.trim() === '')
    throw new DefinitionError('invalid_agent', 'An agent needs a name.');
  if (typeof config.instructions !== 'string' || config.instructions.trim() === '') {
    throw new DefinitionError('invalid_agent', `Agent ${config.name} needs instructions.`);
  }
  const policy = policyOverridesSchema.safeParse(config.policy ?? {});
  if (!policy.success) {
    throw new DefinitionError(
      'invalid_agent',
      `Agent ${config.name} has an invalid policy: ${summariseIssues(toFieldIssues(policy.error.issues, config.policy))}.`,
    );
  }
  if (config.versioning !== undefined && !isAgentVersioning(config.versioning))
    throw new DefinitionError(
      'invalid_agent',
      `Agent ${config.name} has versioning ${JSON.stringify(config.versioning)}: it is ${AGENT_VERSIONINGS.map((v) => `"${v}"`).join(' or ')}.`,
    );
  if (config.upgradeAt !== undefined && !isUpgradePoint(config.upgradeAt))
    throw new DefinitionError(
      'invalid_agent',
      `Agent ${config.name} has upgradeAt ${JSON.stringify(config.upgradeAt)}: it is ${UPGRADE_POINTS.map((v) => `"${v}"`).join(' or ')}.`,
    );
  const seen = new Set<string>();
  for (const [index, tool] of config.tools.entries()) {
    // A tool defineTool never checked (a plain object, an AI SDK tool) fails later, deep in a run.
    // `in`, not a read: in a workflow bundle a tool's spec is made when first read (define-tool.ts).
    if (typeof tool !== 'object' || tool === null || !('spec' in (tool as object)))
      throw new DefinitionError(
        'invalid_agent',
        `Agent ${config.name}'s tool ${typeof tool?.name === 'string' ? tool.name : `#${index + 1}`} was not made with defineTool: define it with defineTool({ name, description, input: z.object({...}), execute }) (an AI SDK tool: fromAiSdkTool(name, tool)).`,
      );
    if (seen.has(tool.name))
      throw new DefinitionError('duplicate_tool_name', `Agent ${config.name} has two tools named ${tool.name}.`);
    seen.add(tool.name);
  }
  const servers = new Set<string>();
  for (const server of config.mcpServers ?? []) {
    if (servers.has(server.name))
      throw new DefinitionError(
        'duplicate_mcp_server',
        `Agent ${config.name} has two MCP servers named ${server.name}.`,
      );
    servers.add(server.name);
  }
  const workspace =
    config.workspace !== undefined || config.tools.some((tool) => tool.workspace === true)
      ? checkWorkspaceConfig(config.name, config.workspace ?? {})
      : undefined;
  const { workspace: _declared, ...rest } = config;
  return Object.freeze({
    ...rest,
    ...(workspace && { workspace }),
    tools: Object.freeze([...config.tools]),
    mcpServers: Object.freeze([...(config.mcpServers ?? [])]),
    policy: config.policy ?? {},
    [AGENT]: true,
  });
}

/** The agent's tool called `name`, if any. */
export function findTool(agent: Pick<AgentConfig, 'tools'>, name: string): AnyTool | undefined {
  return agent.tools.find((tool) => tool.name === name);
}

/**
 * The agents a module exports: every exported agent, and every agent in an exported array (e.g.
 * `export const agents = [support, billing]`), the default export included; each once. This is how
 * `cairn dev` and `cairn worker` read the agents module a `cairn.config.ts` names, on the worker and
 * in the workflow bundle alike. Throws DefinitionError when the module exports none.
 * Deterministic, workflow-safe.
 */
export function agentsOf(moduleExports: Readonly<Record<string, unknown>>, where = 'the agents module'): Agent[] {
  const found = new Set<Agent>();
  for (const key of Object.keys(moduleExports).sort()) {
    const value = moduleExports[key];
    for (const item of Array.isArray(value) ? value : [value]) if (isAgent(item)) found.add(item);
  }
  if (found.size === 0)
    throw new DefinitionError(
      'invalid_agent',
      `${where} exports no agent: export the values defineAgent returns (e.g. export const agents = [supportAgent]).`,
    );
  return [...found];
}

/** The agent a tool runs, when it is an agent tool (from any copy of this module). */
export function agentOf(tool: AnyTool): Agent | undefined {
  return (tool as { [AGENT_TOOL]?: Agent })[AGENT_TOOL];
}

/**
 * `agents` and every agent they reach through agent tools (shared/tools/agent-tool.ts), each once, by
 * name: a worker serves them all and the workflow can start any of them as a child. Iterative, so a
 * cycle of agents calling each other is fine. Throws DefinitionError for two different agents of
 * one name.
 */
export function reachableAgents(agents: readonly Agent[]): Agent[] {
  const byName = new Map<string, Agent>();
  const queue = [...agents];
  for (let agent = queue.shift(); agent; agent = queue.shift()) {
    const seen = byName.get(agent.name);
    if (seen === agent) continue;
    if (seen)
      throw new DefinitionError(
        'duplicate_agent_name',
        `Two agents are named "${agent.name}"; agent names must be unique.`,
      );
    byName.set(agent.name, agent);
    for (const tool of agent.tools) {
      const child = agentOf(tool);
      if (child) queue.push(child);
    }
  }
  return [...byName.values()];
}
