/** Tool results arriving: which calls back off and run again, what the back-off says, and what follows it. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from './policy.js';
import { planBackoffElapsed, planResume } from './plan-resume.js';
import { checked, failed, ok, start, stepOf, toolCall, turnWith } from './testing.js';

const lookup = toolCall('lookup', { id: 1 }, '1.1');
const search = toolCall('search_orders', { q: 'x' }, '1.2');
const admitted = (policy = {}) => turnWith(start(policy).state, [checked(lookup), checked(search)]).state;

describe('planResume', () => {
  it('names every tool it backs off for, once, and why: timed out unless the first was rate limited', () => {
    const twice = turnWith(start().state, [
      checked(lookup),
      checked({ ...lookup, toolCallId: '1.2', args: { id: 2 } }),
    ]).state;
    const both = planResume(
      twice,
      [failed(lookup, 'timeout'), failed({ ...lookup, toolCallId: '1.2', args: { id: 2 } }, 'timeout')],
      0,
    );
    expect(stepOf(both, 'back_off').reason).toBe('back-off for lookup: timed out');
    const mixed = planResume(admitted(), [failed(lookup, 'timeout'), failed(search, 'rate_limited')], 0);
    expect(stepOf(mixed, 'back_off').reason).toBe('back-off for lookup, search_orders: timed out');
    const limited = planResume(admitted(), [ok(lookup), failed(search, 'rate_limited')], 0);
    expect(stepOf(limited, 'back_off').reason).toBe('back-off for search_orders: rate limited');
    const limitedFirst = planResume(admitted(), [failed(lookup, 'rate_limited'), failed(search, 'timeout')], 0);
    expect(stepOf(limitedFirst, 'back_off').reason).toBe('back-off for lookup, search_orders: rate limited');
    // A back-off adds nothing to the transcript: the batch is recorded whole when it completes.
    expect(limitedFirst.record).toEqual([]);
    expect(limitedFirst.notes).toEqual([]);
  });

  it("counts each re-run against the turn's budget of the call", () => {
    const plan = planResume(admitted(), [failed(lookup, 'timeout'), ok(search)], 0);
    expect(plan.state.attempts).toMatchObject({
      [turnWith(start().state, [checked(lookup)]).state.batch!.entries[0]!.key]: 2,
    });
  });

  it('backs off a transient failure that carries no hint at all', () => {
    const { retryHint: _, ...bare } = failed(lookup, 'timeout');
    expect(stepOf(planResume(admitted(), [bare, ok(search)], 0), 'back_off').next).toEqual({
      type: 'execute_tools',
      calls: [lookup],
    });
  });

  it('a retry-after exactly at the ceiling is waited out', () => {
    const ceiling = DEFAULT_POLICY.backoff.maxRetryAfterMs!;
    const plan = planResume(admitted(), [failed(lookup, 'rate_limited', { retryAfterMs: ceiling }), ok(search)], 0);
    expect(stepOf(plan, 'back_off').delayMs).toBeGreaterThanOrEqual(ceiling);
    expect(stepOf(plan, 'back_off').delayMs).toBeLessThan(ceiling + DEFAULT_POLICY.backoff.initialMs);
  });

  it('ignores a result for a call the batch does not hold, and results that need no back-off', () => {
    const stray = toolCall('lookup', {}, '9.9');
    const plan = planResume(admitted(), [failed(stray, 'timeout'), ok(lookup), failed(search, 'semantic_error')], 0);
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
    expect(plan.record.map((r) => r.toolCallId)).toEqual(['1.1', '1.2']);
  });

  it('refuses results when no batch is in progress (a workflow bug, not a model error)', () => {
    expect(() => planResume(start().state, [ok(lookup)], 0)).toThrow('planResume: no batch in progress');
  });
});

describe('planBackoffElapsed', () => {
  it('takes the deferred step: the calls again in the tools phase, or the model in the model phase', () => {
    const backOff = planResume(admitted(), [failed(lookup, 'timeout'), ok(search)], 0);
    const step = stepOf(backOff, 'back_off');
    const again = planBackoffElapsed(backOff.state, step);
    expect(again).toEqual({ state: { ...backOff.state, phase: 'tools' }, step: step.next, record: [], notes: [] });
    const model = { ...step, next: { type: 'call_model' as const, toolChoice: 'auto' as const, tools: [] } };
    expect(planBackoffElapsed(backOff.state, model)).toMatchObject({ state: { phase: 'model' }, step: model.next });
  });
});
