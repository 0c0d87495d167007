import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { agentVersion } from './agent-version.js';
import { defineAgent, type AgentConfig } from './define-agent.js';

const lookup = (schema: z.ZodObject = z.object({ orderId: z.string() }), body = (args: unknown) => args) =>
  defineTool({ name: 'lookup_order', description: 'Look an order up.', input: schema, execute: body });
const agent = (overrides: Partial<AgentConfig> = {}) =>
  defineAgent({ name: 'support', instructions: 'Help with orders.', tools: [lookup()], ...overrides });

describe('agentVersion: a digest of what decides how the agent behaves', () => {
  it('is the same for the same definition, built twice (another worker, another build)', () => {
    expect(agentVersion(agent())).toMatch(/^[0-9a-f]{16}$/);
    expect(agentVersion(agent())).toBe(agentVersion(agent()));
  });

  it('changes with the instructions, the model, a tool schema or description, its approval, and the policy', () => {
    const base = agentVersion(agent());
    const changed = [
      agent({ instructions: 'Help with refunds.' }),
      agent({ model: 'openai:gpt-4.1' }),
      agent({ tools: [lookup(z.object({ orderId: z.number() }))] }),
      agent({
        tools: [
          defineTool({
            name: 'lookup_order',
            description: 'Find an order.',
            input: z.object({ orderId: z.string() }),
            execute: (a) => a,
          }),
        ],
      }),
      agent({
        tools: [
          defineTool({
            name: 'lookup_order',
            description: 'Look an order up.',
            input: z.object({ orderId: z.string() }),
            approval: 'always',
            execute: (a) => a,
          }),
        ],
      }),
      agent({ policy: { maxTurns: 3 } }),
    ].map(agentVersion);
    expect(changed).not.toContain(base);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it("does not change with a tool's body: it changes freely under a run", () => {
    const base = agentVersion(agent());
    expect(agentVersion(agent({ tools: [lookup(undefined, () => ({ other: true }))] }))).toBe(base);
  });
});
