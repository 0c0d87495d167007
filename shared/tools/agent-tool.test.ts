/** Another agent as a tool: what the model sees and calls, and how the run finds the agent behind it. */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../agent/define-agent.js';
import { agentOf, agentTaskSchema, agentTool } from './agent-tool.js';
import { defineTool, needsApproval } from './define-tool.js';
import { z } from 'zod';

const billing = () => defineAgent({ name: ' Billing Desk (EU) ', instructions: 'Handle invoices.', tools: [] });

describe('agentTool', () => {
  it('is named after the agent in snake_case, takes a task, and runs once without review by default', () => {
    const agent = billing();
    const tool = agentTool(agent, { description: 'Hand invoice questions to billing.' });
    expect(tool.name).toBe('billing_desk_eu');
    expect(tool.description).toBe('Hand invoice questions to billing.');
    expect(tool.sideEffects).toBe('once');
    expect(tool.approval).toBe('never');
    expect(tool.review).toBeUndefined();
    expect(tool.spec.args_schema).toMatchObject({ type: 'object', required: ['task'] });
    expect(agentOf(tool)).toBe(agent);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('takes the name, side effects, approval and review it is given', () => {
    const approval = (task: { task: string }) => task.task.includes('refund');
    const tool = agentTool(billing(), {
      name: 'ask_billing',
      description: 'd',
      sideEffects: 'idempotent',
      approval,
      review: { allow: ['accept', 'reject'] },
    });
    expect(tool.name).toBe('ask_billing');
    expect(tool.sideEffects).toBe('idempotent');
    expect(needsApproval(tool, { task: 'refund order 7' })).toBe(true);
    expect(needsApproval(tool, { task: 'explain invoice 7' })).toBe(false);
    expect(tool.review).toEqual({ allow: ['accept', 'reject'] });
  });

  it('never runs in an activity: the child workflow runs the agent', () => {
    const tool = agentTool(billing(), { description: 'd' });
    expect(() => tool.execute({ task: 'x' }, {} as never)).toThrow(
      ' Billing Desk (EU)  runs as a child workflow, never in an activity.',
    );
  });

  it('a task is trimmed, non-empty text of at most 20,000 characters', () => {
    expect(agentTaskSchema.parse({ task: '  do it  ' })).toEqual({ task: 'do it' });
    expect(agentTaskSchema.safeParse({ task: '   ' }).success).toBe(false);
    expect(agentTaskSchema.safeParse({ task: 'x'.repeat(20_000) }).success).toBe(true);
    expect(agentTaskSchema.safeParse({ task: 'x'.repeat(20_001) }).success).toBe(false);
  });

  it('a plain tool runs no agent', () => {
    expect(
      agentOf(defineTool({ name: 'plain', description: 'd', input: z.object({}), execute: () => null })),
    ).toBeUndefined();
  });
});
