import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentsOf, defineAgent, findTool, isAgent, reachableAgents } from './define-agent.js';
import { agentTool } from '../tools/agent-tool.js';
import { mcpServer } from '../mcp/mcp-server.js';
import { defineTool } from '../tools/define-tool.js';
import { workspaceTools } from '../workspace/workspace-tools.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../workspace/workspace-config.js';

const tool = (name: string) =>
  defineTool({ name, description: `The ${name} tool.`, input: z.object({}), execute: () => null });

describe('defineAgent', () => {
  it('keeps its tools and finds them by name', () => {
    const agent = defineAgent({
      name: 'support',
      instructions: 'Help with orders.',
      tools: [tool('lookup_order'), tool('issue_refund')],
    });
    expect(agent.policy).toEqual({});
    expect(findTool(agent, 'issue_refund')?.name).toBe('issue_refund');
    expect(findTool(agent, 'delete_everything')).toBeUndefined();
  });

  it('refuses a tool that defineTool never checked, naming it', () => {
    const plain = { name: 'find_order', description: 'Find.', input: { orderId: z.string() }, execute: () => null };
    expect(() => defineAgent({ name: 'support', instructions: 'x', tools: [plain as never] })).toThrow(
      expect.objectContaining({
        code: 'invalid_agent',
        message: expect.stringMatching(/^Agent support's tool find_order was not made with defineTool: /),
      }),
    );
    expect(() => defineAgent({ name: 'support', instructions: 'x', tools: [undefined as never] })).toThrow(
      /tool #1 was not made with defineTool/,
    );
  });

  it('refuses two tools with one name, and an agent without a name or instructions', () => {
    expect(() => defineAgent({ name: 'a', instructions: 'x', tools: [tool('t'), tool('t')] })).toThrow(
      expect.objectContaining({ code: 'duplicate_tool_name' }),
    );
    expect(() => defineAgent({ name: ' ', instructions: 'x', tools: [] })).toThrow(
      expect.objectContaining({ code: 'invalid_agent' }),
    );
    expect(() => defineAgent({ name: 'a', instructions: '', tools: [] })).toThrow(
      expect.objectContaining({ code: 'invalid_agent' }),
    );
  });

  it('keeps a versioning choice, and refuses one that is neither pinned nor auto-upgrade', () => {
    expect(defineAgent({ name: 'a', instructions: 'x', tools: [], versioning: 'pinned' }).versioning).toBe('pinned');
    expect(defineAgent({ name: 'a', instructions: 'x', tools: [], versioning: 'auto-upgrade' }).versioning).toBe(
      'auto-upgrade',
    );
    expect(defineAgent({ name: 'a', instructions: 'x', tools: [] }).versioning).toBeUndefined();
    const wrong = { name: 'a', instructions: 'x', tools: [], versioning: 'PINNED' } as never;
    expect(() => defineAgent(wrong)).toThrow(
      expect.objectContaining({
        code: 'invalid_agent',
        message: 'Agent a has versioning "PINNED": it is "pinned" or "auto-upgrade".',
      }),
    );
  });
});

describe('defineAgent: what a worker and the workflow read', () => {
  const server = (name: string) => mcpServer({ name, command: 'node' });

  it('keeps name, instructions, model and policy, fills no-MCP and no-policy defaults, and freezes', () => {
    const tools = [tool('a')];
    const agent = defineAgent({
      name: 'support',
      instructions: 'Help.',
      tools,
      model: 'openai:gpt-4.1-mini',
      policy: { maxTurns: 3 },
    });
    expect(agent).toMatchObject({
      name: 'support',
      instructions: 'Help.',
      model: 'openai:gpt-4.1-mini',
      policy: { maxTurns: 3 },
      mcpServers: [],
    });
    expect(agent.tools).toEqual(tools);
    expect(agent.tools).not.toBe(tools);
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.tools)).toBe(true);
    expect(Object.isFrozen(agent.mcpServers)).toBe(true);
    expect(isAgent(agent)).toBe(true);
    expect(isAgent({ ...agent })).toBe(true);
    for (const value of [null, undefined, 'support', { name: 'support' }]) expect(isAgent(value)).toBe(false);
  });

  it('refuses an invalid policy, naming the field', () => {
    const bad = () => defineAgent({ name: 'a', instructions: 'x', tools: [], policy: { maxTurns: -1 } });
    expect(bad).toThrow(
      expect.objectContaining({
        code: 'invalid_agent',
        message: expect.stringMatching(/^Agent a has an invalid policy: .*maxTurns/),
      }),
    );
  });

  it('refuses a missing name or instructions with what is missing', () => {
    expect(() => defineAgent({ name: 1 as unknown as string, instructions: 'x', tools: [] })).toThrow(
      'An agent needs a name.',
    );
    expect(() => defineAgent({ name: 'a', instructions: '  ', tools: [] })).toThrow('Agent a needs instructions.');
    expect(() => defineAgent({ name: 'a', instructions: 7 as unknown as string, tools: [] })).toThrow(
      'Agent a needs instructions.',
    );
    expect(() => defineAgent({ name: 'a', instructions: 'x', tools: [tool('t'), tool('u'), tool('t')] })).toThrow(
      'Agent a has two tools named t.',
    );
  });

  it('keeps its MCP servers and refuses two of one name', () => {
    const agent = defineAgent({ name: 'a', instructions: 'x', tools: [], mcpServers: [server('fs'), server('git')] });
    expect(agent.mcpServers.map((s) => s.name)).toEqual(['fs', 'git']);
    expect(() =>
      defineAgent({ name: 'a', instructions: 'x', tools: [], mcpServers: [server('fs'), server('git'), server('fs')] }),
    ).toThrow(
      expect.objectContaining({ code: 'duplicate_mcp_server', message: 'Agent a has two MCP servers named fs.' }),
    );
  });
});

describe('defineAgent: a workspace', () => {
  it('an agent with workspace tools and no workspace starts empty, with the default limits', () => {
    const agent = defineAgent({ name: 'coder', instructions: 'Code.', tools: workspaceTools() });
    expect(agent.workspace).toEqual({ from: { empty: true }, limits: DEFAULT_WORKSPACE_LIMITS, network: false });
  });

  it('an agent without workspace tools or a workspace has none', () => {
    expect(defineAgent({ name: 'plain', instructions: 'Talk.', tools: [] }).workspace).toBeUndefined();
  });

  it('refuses a workspace it cannot use, naming the agent and the field', () => {
    const bad = (workspace: unknown) => () =>
      defineAgent({ name: 'coder', instructions: 'Code.', tools: [], workspace: workspace as never });
    expect(bad({ from: { dir: '' } })).toThrow("Agent coder's workspace from.dir must be a path.");
    expect(bad({ from: { snapshot: 'abc' } })).toThrow('from.snapshot must be a digest');
    expect(bad({ from: { url: 'x' } })).toThrow('from must be { dir }, { archive }, { snapshot } or { empty: true }');
    expect(bad({ limits: { commandMs: -1 } })).toThrow('limit commandMs must be a positive whole number (got -1)');
    expect(bad({ network: 'yes' })).toThrow('network must be true or false');
  });

  it('keeps the limits given over the defaults', () => {
    const agent = defineAgent({
      name: 'coder',
      instructions: 'Code.',
      tools: [],
      workspace: { from: { dir: 'project' }, limits: { commandMs: 5_000 }, network: true },
    });
    expect(agent.workspace).toEqual({
      from: { dir: 'project' },
      limits: { ...DEFAULT_WORKSPACE_LIMITS, commandMs: 5_000 },
      network: true,
    });
  });

  it("refuses a workspace tool that is 'once': a crashed call runs again on its snapshot", () => {
    expect(() =>
      defineTool({
        name: 'deploy',
        description: 'Deploy.',
        input: z.object({}),
        sideEffects: 'once',
        workspace: true,
        execute: () => 'ok',
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_tool_workspace' }));
  });
});

describe('agentsOf', () => {
  it('finds exported agents and agents in exported arrays, each once, in export-name order', () => {
    const a = defineAgent({ name: 'a', instructions: 'x', tools: [] });
    const b = defineAgent({ name: 'b', instructions: 'x', tools: [] });
    expect(agentsOf({ zed: b, agents: [a, b, 'not an agent'], default: a, other: 3 })).toEqual([a, b]);
    expect(agentsOf({ z: a, b: b })).toEqual([b, a]);
  });

  it('refuses a module exporting no agent, saying where', () => {
    expect(() => agentsOf({ x: 1 })).toThrow(
      expect.objectContaining({
        code: 'invalid_agent',
        message: expect.stringMatching(/^the agents module exports no agent/),
      }),
    );
    expect(() => agentsOf({}, 'agents.ts')).toThrow(/^agents\.ts exports no agent/);
  });
});

describe('reachableAgents', () => {
  it('adds the agents reached through agent tools, each once', () => {
    const leaf = defineAgent({ name: 'leaf', instructions: 'x', tools: [] });
    const middle = defineAgent({
      name: 'middle',
      instructions: 'x',
      tools: [agentTool(leaf, { description: 'd' }), tool('plain')],
    });
    const root = defineAgent({
      name: 'root',
      instructions: 'x',
      tools: [agentTool(middle, { description: 'd' }), agentTool(leaf, { description: 'd' })],
    });
    expect(reachableAgents([root])).toEqual([root, middle, leaf]);
    expect(reachableAgents([leaf, root, leaf])).toEqual([leaf, root, middle]);
  });

  it('refuses two different agents of one name', () => {
    const one = defineAgent({ name: 'same', instructions: 'x', tools: [] });
    const two = defineAgent({ name: 'same', instructions: 'y', tools: [] });
    expect(() => reachableAgents([one, two])).toThrow(
      expect.objectContaining({
        code: 'duplicate_agent_name',
        message: 'Two agents are named "same"; agent names must be unique.',
      }),
    );
  });
});
