/** A person's message while the run works: what it does now, and when the model sees it. */
import { describe, expect, it } from 'vitest';
import type { PlanStep } from './plan.js';
import { deliverMessages, messageDecision, workingOn } from './plan-messages.js';
import { start, toolCall } from './testing.js';

const callModelStep: PlanStep = { type: 'call_model', toolChoice: 'auto', tools: ['lookup'] };
const tools: PlanStep = { type: 'execute_tools', calls: [toolCall('lookup')] };
const backOff: PlanStep = { type: 'back_off', delayMs: 1_000, reason: 'back-off for lookup: timed out', next: tools };
const answered: PlanStep = { type: 'finish', answer: 'Done.', reason: null };
const forced: PlanStep = { type: 'finish', answer: 'Stopped.', reason: 'cancelled' };
const asking: PlanStep = {
  type: 'await_clarification',
  clarification: { id: 'q1', question: 'Which window?', toolCallId: '1.1', tool: 'lookup', askedAt: 0 } as never,
};
const messages = [
  { id: 'm1', text: 'Also check A-1002.' },
  { id: 'm2', text: 'And A-1003.' },
];

describe('messageDecision', () => {
  it('queues whatever the policy when nothing could be cut short', () => {
    for (const onMessage of ['enqueue', 'interrupt', 'reject'] as const)
      expect(messageDecision(onMessage, null)).toBe('queue');
  });

  it('refuses while the run works when the policy rejects', () => {
    expect(messageDecision('reject', 'model')).toBe('refuse');
    expect(messageDecision('reject', 'tools')).toBe('refuse');
  });

  it('interrupts only a model call, and only when the policy says so; tools are never cut short', () => {
    expect(messageDecision('interrupt', 'model')).toBe('interrupt');
    expect(messageDecision('interrupt', 'tools')).toBe('queue');
    expect(messageDecision('enqueue', 'model')).toBe('queue');
    expect(messageDecision('enqueue', 'tools')).toBe('queue');
  });
});

describe('workingOn', () => {
  it('names a model call, tools and back-offs; anything else is nothing a message could cut short', () => {
    expect(workingOn(callModelStep)).toBe('model');
    expect(workingOn(tools)).toBe('tools');
    expect(workingOn(backOff)).toBe('tools');
    expect(workingOn(answered)).toBeNull();
    expect(workingOn(asking)).toBeNull();
  });
});

describe('deliverMessages', () => {
  it('waits when there is nothing to deliver', () => {
    const { state } = start();
    expect(deliverMessages(state, callModelStep, [])).toBeNull();
    expect(deliverMessages(state, answered, [])).toBeNull();
  });

  it('joins the next model call as it is, every message in order, adding nothing else', () => {
    const { state } = start();
    expect(deliverMessages(state, callModelStep, messages)).toEqual({
      state,
      step: callModelStep,
      record: [],
      notes: [],
      said: ['Also check A-1002.', 'And A-1003.'],
    });
  });

  it("turns a finish on the model's own answer into one more model turn that hears them", () => {
    const { state } = start();
    const plan = deliverMessages(state, answered, messages)!;
    expect(plan.step).toMatchObject({ type: 'call_model', toolChoice: 'auto' });
    expect(plan.state.phase).toBe('model');
    expect(plan.said).toEqual(['Also check A-1002.', 'And A-1003.']);
    expect(plan.record).toEqual([]);
  });

  it('lets a forced finish or a final turn go, and waits through tools, back-offs and questions', () => {
    const { state } = start();
    expect(deliverMessages(state, forced, messages)).toBeNull();
    expect(deliverMessages({ ...state, finalizing: 'the turn budget is spent' }, answered, messages)).toBeNull();
    expect(deliverMessages(state, tools, messages)).toBeNull();
    expect(deliverMessages(state, backOff, messages)).toBeNull();
    expect(deliverMessages(state, asking, messages)).toBeNull();
  });
});
