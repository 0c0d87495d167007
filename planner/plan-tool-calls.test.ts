/** What the model is told about each call of a turn that does not run, and what waits for a person. */
import { describe, expect, it } from 'vitest';
import { argsHash } from '../shared/identity/hash.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { planToolCalls } from './plan-tool-calls.js';
import { checkedCall } from './toolbox.js';
import { checked, failed, start, stepOf, toolCall, turnResulting, turnWith } from './testing.js';

/** The error message the model reads for a refused call. */
const told = (result: ToolResult | undefined) => (result?.status === 'error' ? result.error.message : undefined);

describe('refused calls tell the model why', () => {
  it('a tool the agent does not have', () => {
    const pay = toolCall('pay', {}, '1.1');
    const plan = turnWith(start().state, [checked(pay)]);
    expect(plan.record).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({ code: 'unknown_tool', message: 'pay is disabled: not available.' }),
      }),
    ]);
  });

  it('a call blocked for broken output', () => {
    const lookup = toolCall('lookup', { id: 1 }, '1.1');
    const blocked = turnResulting(start().state, [checked(lookup)], (c) => failed(c, 'output_not_json'));
    const again = toolCall('lookup', { id: 1 }, '2.1');
    const plan = turnWith(blocked.state, [checked(again)]);
    expect(told(plan.record[0])).toBe(
      'Not run: lookup returned malformed output for these arguments; calling it again the same way will not help.',
    );
  });

  it("a batch over the run's cap of tool calls", () => {
    const plan = turnWith(start({ maxToolCalls: 1 }).state, [
      checked(toolCall('lookup', { id: 1 }, '1.1')),
      checked(toolCall('lookup', { id: 2 }, '1.2')),
    ]);
    expect(told(plan.record[0])).toBe("Not run: the run's cap of 1 tool calls would be crossed by this batch.");
  });

  it('the same call once too often in a turn, reviewed calls included', () => {
    const a = toolCall('lookup', { id: 1 }, '1.1');
    const b = toolCall('lookup', { id: 1 }, '1.2');
    const plan = turnWith(start({ retryBudgetPerTurn: 1 }).state, [
      checked(a, { needsApproval: true }),
      checked(b, { needsApproval: true }),
    ]);
    expect(stepOf(plan, 'await_review').reviews.map((r) => r.toolCallId)).toEqual(['1.1']);
    expect(told(plan.state.batch!.results['1.2'])).toBe(
      'Not run: lookup with these arguments already ran 1 time(s) this turn.',
    );
  });
});

describe('a call that needs review', () => {
  const refund = toolCall('refund', { order_id: 'A-1', amount: 500 }, '1.1');

  it('carries the decisions the reviewer may make and what to check, when the tool says', () => {
    const hash = argsHash(refund.args);
    const call = checkedCall(refund, hash, {
      sideEffects: 'once',
      needsApproval: true,
      review: { allow: ['accept', 'reject'], description: 'Check the amount.' },
    });
    const plan = planToolCalls(start().state, [call], 0);
    expect(stepOf(plan, 'await_review').reviews).toEqual([
      {
        toolCallId: '1.1',
        name: 'refund',
        args: refund.args,
        argsHash: hash,
        allowed: ['accept', 'reject'],
        description: 'Check the amount.',
      },
    ]);
  });

  it('carries neither when the tool says nothing', () => {
    const hash = argsHash(refund.args);
    const plan = planToolCalls(
      start().state,
      [checkedCall(refund, hash, { sideEffects: 'once', needsApproval: true })],
      0,
    );
    expect(stepOf(plan, 'await_review').reviews).toEqual([
      { toolCallId: '1.1', name: 'refund', args: refund.args, argsHash: hash },
    ]);
  });
});
