/**
 * An agent's version: a digest of the definition that decides how its runs behave — instructions,
 * model, each tool as the model sees it (name, description, argument schema) and as the planner
 * checks it (side effects, approval), MCP servers, policy, workspace. A run records the version it
 * runs (`RunState.agentVersion`, the `CairnAgentVersion` search attribute), so a fleet can be
 * listed by it and a person told when it changed (docs/upgrades.md).
 *
 * Tools' bodies are left out on purpose: they change freely under a run. An approval function
 * counts as `rule` (its text depends on the bundler). Workflow-safe, deterministic.
 */
import { canonicalJson } from '../json/canonical-json.js';
import type { JsonValue } from '../json/json.js';
import { fnv1a64 } from '../identity/hash.js';
import type { Agent } from './define-agent.js';

const versions = new WeakMap<Agent, string>();

/** 16 hex digits; the same definition gives the same version on every worker and build. */
export function agentVersion(agent: Agent): string {
  let version = versions.get(agent);
  if (version === undefined) {
    version = fnv1a64(canonicalJson(agentDefinition(agent)));
    versions.set(agent, version);
  }
  return version;
}

/** What the version is a digest of, as JSON. */
function agentDefinition(agent: Agent): JsonValue {
  return {
    instructions: agent.instructions,
    model: agent.model ?? null,
    tools: agent.tools.map((tool) => ({
      ...tool.spec,
      sideEffects: tool.sideEffects,
      approval: typeof tool.approval === 'function' ? 'rule' : tool.approval,
      workspace: tool.workspace === true,
    })),
    // Not headers or env: they hold secrets, and differ between environments of one build.
    mcpServers: agent.mcpServers.map(({ name, url, command, args, include, exclude, prefix, tools }) =>
      json({ name, url, command, args, include, exclude, prefix, tools }),
    ),
    policy: json(agent.policy),
    workspace: agent.workspace ? json(agent.workspace) : null,
  };
}

/** A plain value as JSON: functions and undefined dropped, as JSON.stringify does. */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}
