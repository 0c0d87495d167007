/**
 * What a completed batch leads to when several calls fail together: which tool a repair turn is
 * restricted to, which errors the state keeps for people, and which escalation wins.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LAST_ERRORS } from './complete-batch.js';
import { planResume } from './plan-resume.js';
import type { Plan } from './plan.js';
import { checked, drive, failed, ok, rawCall, start, stepOf, textReply, toolCall, toolCallsReply, turnWith, TOOLS } from './testing.js';

const repair = { restrictToTool: true };

describe('the repair turn after a batch', () => {
  it('is restricted to the tool when the calls needing repair are all of one tool', () => {
    const a = toolCall('lookup', { order_id: 1 }, '1.1');
    const b = toolCall('lookup', { order_id: 2 }, '1.2');
    const c = toolCall('search_orders', {}, '1.3');
    const plan = turnWith(start().state, [checked(a, { failure: failed(a, 'invalid_arguments', repair) }), checked(b, { failure: failed(b, 'missing_fields', repair) }), checked(c)]);
    const done = planResume(plan.state, [ok(c)], 0);
    expect(stepOf(done, 'call_model').toolChoice).toEqual({ tool: 'lookup' });
  });

  it('is not restricted when calls of two different tools need repair: the model must fix both', () => {
    for (const [first, second] of [['lookup', 'search_orders'], ['search_orders', 'lookup']] as const) {
      const a = toolCall(first, {}, '1.1');
      const b = toolCall(second, {}, '1.2');
      const plan = turnWith(start().state, [checked(a, { failure: failed(a, 'invalid_arguments', repair) }), checked(b, { failure: failed(b, 'invalid_arguments', repair) })]);
      expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    }
  });
});

describe('lastErrors', () => {
  it(`keeps the newest ${MAX_LAST_ERRORS}, oldest first, so "Last error" is the latest one`, () => {
    const trace = drive({
      model: [...Array.from({ length: 7 }, (_, i) => toolCallsReply([rawCall('lookup', { order_id: i })])), textReply('done')],
      policy: { maxConsecutiveFailedBatches: 100 },
      tool: (c) => failed(c, 'internal_error'),
    });
    const plans = trace.plans as Plan[];
    const last = plans.findLast((p) => p.state.lastErrors.length > 0)!.state.lastErrors;
    expect(last.map((e) => e.toolCallId)).toEqual(['3.1', '4.1', '5.1', '6.1', '7.1']);
    expect(last.at(-1)).toMatchObject({ tool: 'lookup', code: 'internal_error', message: 'lookup failed: internal_error' });
  });
});

describe('escalation', () => {
  it('blocks every looping call of a batch and escalates for the first', () => {
    const calls = [rawCall('lookup', { order_id: 1 }), rawCall('search_orders', { q: 1 })];
    const trace = drive({ model: [toolCallsReply(calls), toolCallsReply(calls), toolCallsReply(calls)], policy: { loopThreshold: 3 }, tool: (c) => failed(c, 'internal_error') });
    const asked = stepOf(trace.last, 'await_clarification');
    expect(asked.clarification.question).toBe('lookup keeps failing with internal_error. How should I proceed?');
    expect(Object.values(trace.last.state.blocked)).toHaveLength(2);
  });
});
