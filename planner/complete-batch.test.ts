/**
 * What a completed batch leads to when several calls fail together: which tool a repair turn is
 * restricted to, which errors the state keeps for people, and which escalation wins.
 */
import { describe, expect, it } from 'vitest';
import { completeBatch, MAX_LAST_ERRORS } from './complete-batch.js';
import { planResume } from './plan-resume.js';
import type { Plan } from './plan.js';
import {
  checked,
  drive,
  failed,
  ok,
  rawCall,
  start,
  stepOf,
  textReply,
  toolCall,
  toolCallsReply,
  turnWith,
  validatorFailed,
  TOOLS,
} from './testing.js';

const repair = { restrictToTool: true };

describe('the repair turn after a batch', () => {
  it('is restricted to the tool when the calls needing repair are all of one tool', () => {
    const a = toolCall('lookup', { order_id: 1 }, '1.1');
    const b = toolCall('lookup', { order_id: 2 }, '1.2');
    const c = toolCall('search_orders', {}, '1.3');
    const plan = turnWith(start().state, [
      checked(a, { failure: failed(a, 'invalid_arguments', repair) }),
      checked(b, { failure: failed(b, 'missing_fields', repair) }),
      checked(c),
    ]);
    const done = planResume(plan.state, [ok(c)], 0);
    expect(stepOf(done, 'call_model').toolChoice).toEqual({ tool: 'lookup' });
  });

  it('is not restricted when calls of two different tools need repair: the model must fix both', () => {
    for (const [first, second] of [
      ['lookup', 'search_orders'],
      ['search_orders', 'lookup'],
    ] as const) {
      const a = toolCall(first, {}, '1.1');
      const b = toolCall(second, {}, '1.2');
      const plan = turnWith(start().state, [
        checked(a, { failure: failed(a, 'invalid_arguments', repair) }),
        checked(b, { failure: failed(b, 'invalid_arguments', repair) }),
      ]);
      expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    }
  });
});

describe('lastErrors', () => {
  it(`keeps the newest ${MAX_LAST_ERRORS}, oldest first, so "Last error" is the latest one`, () => {
    const trace = drive({
      model: [
        ...Array.from({ length: 7 }, (_, i) => toolCallsReply([rawCall('lookup', { order_id: i })])),
        textReply('done'),
      ],
      policy: { maxConsecutiveFailedBatches: 100 },
      tool: (c) => failed(c, 'internal_error'),
    });
    const plans = trace.plans as Plan[];
    const last = plans.findLast((p) => p.state.lastErrors.length > 0)!.state.lastErrors;
    expect(last.map((e) => e.toolCallId)).toEqual(['3.1', '4.1', '5.1', '6.1', '7.1']);
    expect(last.at(-1)).toMatchObject({
      tool: 'lookup',
      code: 'internal_error',
      message: 'lookup failed: internal_error',
    });
  });
});

describe('escalation', () => {
  it('blocks every looping call of a batch and escalates for the first', () => {
    const calls = [rawCall('lookup', { order_id: 1 }), rawCall('search_orders', { q: 1 })];
    const trace = drive({
      model: [toolCallsReply(calls), toolCallsReply(calls), toolCallsReply(calls)],
      policy: { loopThreshold: 3 },
      tool: (c) => failed(c, 'internal_error'),
    });
    const asked = stepOf(trace.last, 'await_clarification');
    expect(asked.clarification.question).toBe('lookup keeps failing with internal_error. How should I proceed?');
    expect(Object.values(trace.last.state.blocked)).toHaveLength(2);
  });
});

describe('a call whose outcome nobody knows', () => {
  const refund = toolCall('refund', { order_id: 'A-17', amount: 120 }, '1.1');
  const resumed = (policy = {}, call = refund) =>
    planResume(
      turnWith(start(policy).state, [checked(call, { sideEffects: 'once' })]).state,
      [failed(call, 'outcome_unknown')],
      5_000,
    );

  it('asks a person whether it took effect, naming the call and its arguments', () => {
    const plan = resumed();
    expect(stepOf(plan, 'await_clarification').clarification).toEqual({
      id: 'q1',
      question:
        'refund (call 1.1, {"order_id":"A-17","amount":120}) stopped before it reported a result, so nobody knows whether it took effect. Did it?',
      tool: 'refund',
    });
    expect(plan.state).toMatchObject({ phase: 'awaiting_clarification', questions: 1, waitingSince: 5_000 });
    expect(plan.record).toEqual([failed(refund, 'outcome_unknown')]);
  });

  it('cuts long arguments in the question to 200 characters', () => {
    const big = { ...refund, args: { note: 'n'.repeat(300) } };
    const question = stepOf(resumed({}, big), 'await_clarification').clarification.question;
    expect(question).toContain(`${JSON.stringify(big.args).slice(0, 200)}…)`);
    const exact = { ...refund, args: { note: 'n'.repeat(189) } };
    expect(JSON.stringify(exact.args)).toHaveLength(200);
    expect(stepOf(resumed({}, exact), 'await_clarification').clarification.question).toContain(
      `${JSON.stringify(exact.args)})`,
    );
  });

  it("with onOutcomeUnknown: 'inform', tells the model instead of asking", () => {
    const plan = resumed({ onOutcomeUnknown: 'inform' });
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
    expect(plan.state.clarification).toBeNull();
  });
});

describe('the failing-batch streak', () => {
  const a = toolCall('lookup', { id: 1 }, '1.1');
  const b = toolCall('search_orders', { q: 1 }, '1.2');
  const streakAfter = (results: Parameters<typeof planResume>[1], streak = 2) => {
    const state = { ...turnWith(start().state, [checked(a), checked(b)]).state, failedBatchStreak: streak };
    return planResume(state, results, 0).state.failedBatchStreak;
  };

  it('grows when every call of a batch failed, and starts over when one succeeded or brought partial data', () => {
    expect(streakAfter([failed(a, 'internal_error'), failed(b, 'semantic_error')])).toBe(3);
    expect(streakAfter([failed(a, 'internal_error'), ok(b)])).toBe(0);
    expect(streakAfter([failed(a, 'internal_error'), failed(b, 'partial_data', {}, [1])])).toBe(0);
  });

  it('ends the run with a forced final turn once it reaches the cap, the results recorded', () => {
    const plan = planResume(
      { ...turnWith(start({ maxConsecutiveFailedBatches: 3 }).state, [checked(a)]).state, failedBatchStreak: 2 },
      [failed(a, 'internal_error')],
      0,
    );
    expect(stepOf(plan, 'call_model')).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(plan.state.finalizing).toBe('3 tool batches in a row failed');
    expect(plan.record).toEqual([failed(a, 'internal_error')]);
  });
});

describe('repairs of one tool', () => {
  it('after maxRepairsPerTool invalid calls in a row, asks a person; a success in between starts over', () => {
    const bad = (c: ReturnType<typeof toolCall>) => failed(c, 'invalid_arguments');
    const trace = drive({
      policy: { maxRepairsPerTool: 2, loopThreshold: 100 },
      model: [1, 2, 3].map((i) => toolCallsReply([rawCall('lookup', { id: i })])),
      tool: bad,
    });
    expect(stepOf(trace.last, 'await_clarification').clarification.question).toBe(
      'lookup still gets invalid calls after 2 repairs. How should I proceed?',
    );
    const healed = drive({
      policy: { maxRepairsPerTool: 2, loopThreshold: 100 },
      model: [...[1, 2, 3, 4].map((i) => toolCallsReply([rawCall('lookup', { id: i })])), textReply('done')],
      tool: (c) => ((c.args as { id: number }).id === 2 ? ok(c) : bad(c)),
    });
    expect(healed.last.step).toMatchObject({ type: 'finish', answer: 'done' });
  });

  it("a validator refusing a tool's results counts as a repair too", () => {
    const trace = drive({
      policy: { maxRepairsPerTool: 2, loopThreshold: 100 },
      model: [1, 2, 3].map((i) => toolCallsReply([rawCall('lookup', { id: i })])),
      tool: (c) => validatorFailed(c),
    });
    expect(stepOf(trace.last, 'await_clarification').clarification.question).toBe(
      'lookup still gets invalid calls after 2 repairs. How should I proceed?',
    );
  });

  it("keeps a validator's feedback as the error people see", () => {
    const a = toolCall('lookup', { id: 1 }, '1.1');
    const plan = planResume(
      turnWith(start().state, [checked(a)]).state,
      [
        {
          status: 'validator_failed',
          name: 'lookup',
          toolCallId: '1.1',
          validator: 'isbn',
          feedback: 'Use 13 digits.',
          telemetry: { durationMs: 0, attempt: 1 },
        },
      ],
      0,
    );
    expect(plan.state.lastErrors).toEqual([
      { toolCallId: '1.1', tool: 'lookup', code: 'validator_failed', message: 'Use 13 digits.' },
    ]);
  });
});

describe('which escalation wins', () => {
  // Turn by turn: `lookup` gets new invalid arguments (a repair streak), `search_orders` fails the same way (a loop).
  const run = (order: readonly ('lookup' | 'search_orders')[]) =>
    drive({
      policy: { maxRepairsPerTool: 2, loopThreshold: 3 },
      model: [1, 2, 3].map((i) =>
        toolCallsReply(order.map((name) => rawCall(name, name === 'lookup' ? { id: i } : { q: 'x' }))),
      ),
      tool: (c) => failed(c, c.name === 'lookup' ? 'invalid_arguments' : 'internal_error'),
    });

  it('the earliest call that escalates decides, whichever rule it broke', () => {
    expect(stepOf(run(['lookup', 'search_orders']).last, 'await_clarification').clarification.question).toBe(
      'lookup still gets invalid calls after 2 repairs. How should I proceed?',
    );
    expect(stepOf(run(['search_orders', 'lookup']).last, 'await_clarification').clarification.question).toBe(
      'search_orders keeps failing with internal_error. How should I proceed?',
    );
  });
});

describe('after a batch completes', () => {
  it('no review and no held call is left pending', () => {
    const trace = drive({
      model: [
        toolCallsReply([rawCall('refund', { order_id: 'A-1' }), rawCall('lookup', { order_id: 'A-1' })]),
        textReply('Refunded.'),
      ],
      needsApproval: (c) => c.name === 'refund',
      review: (reviews) => Object.fromEntries(reviews.map((r) => [r.toolCallId, { type: 'accept' }])),
      tool: (c) => ok(c),
    });
    const completed = trace.plans.find((p) => p.record.length > 0)!;
    expect(completed.record.map((r) => r.name)).toEqual(['refund', 'lookup']);
    expect(completed.state).toMatchObject({ reviews: [], waitingRuns: [] });
  });

  it('a completed batch is a driver bug without its batch or one of its results', () => {
    expect(() => completeBatch(start().state, 0)).toThrow('completeBatch: no batch in progress');
    const a = toolCall('lookup', {}, '1.1');
    const running = turnWith(start().state, [checked(a)]);
    expect(() => completeBatch(running.state, 0)).toThrow('completeBatch: no result for 1.1');
  });
});

describe('missing fields', () => {
  it('only missing fields are asked of the user; other invalid calls go back to the model', () => {
    const plan = afterOne((c) => failed(c, 'invalid_arguments', { missingFields: ['order_id'] }), {
      missingFieldsFrom: 'user',
    });
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
  });
});

function afterOne(result: (call: ReturnType<typeof toolCall>) => ReturnType<typeof failed>, policy = {}) {
  const a = toolCall('lookup', {}, '1.1');
  return planResume(turnWith(start(policy).state, [checked(a)]).state, [result(a)], 0);
}
