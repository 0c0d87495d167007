import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, findTool } from './define-agent.js';
import { defineTool } from './define-tool.js';

const tool = (name: string) => defineTool({ name, description: `The ${name} tool.`, input: z.object({}), execute: () => null });

describe('defineAgent', () => {
  it('keeps its tools and finds them by name', () => {
    const agent = defineAgent({ name: 'support', instructions: 'Help with orders.', tools: [tool('lookup_order'), tool('issue_refund')] });
    expect(agent.policy).toEqual({});
    expect(findTool(agent, 'issue_refund')?.name).toBe('issue_refund');
    expect(findTool(agent, 'delete_everything')).toBeUndefined();
  });

  it('refuses two tools with one name, and an agent without a name or instructions', () => {
    expect(() => defineAgent({ name: 'a', instructions: 'x', tools: [tool('t'), tool('t')] })).toThrow(expect.objectContaining({ code: 'duplicate_tool_name' }));
    expect(() => defineAgent({ name: ' ', instructions: 'x', tools: [] })).toThrow(expect.objectContaining({ code: 'invalid_agent' }));
    expect(() => defineAgent({ name: 'a', instructions: '', tools: [] })).toThrow(expect.objectContaining({ code: 'invalid_agent' }));
  });
});
