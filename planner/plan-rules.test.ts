/**
 * One rule per retry reason (hint-actions.ts): what the planner does after a batch whose call
 * failed for that reason. Each test runs a real model turn through the planner's own functions.
 */
import { describe, expect, it } from 'vitest';
import { RetryReason, type ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { backoffDelay } from './backoff.js';
import { HINT_ACTIONS } from './hint-actions.js';
import { planResume } from './plan-resume.js';
import { DEFAULT_POLICY } from './policy.js';
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
  turnResulting,
  turnWith,
  validatorFailed,
  TOOLS,
} from './testing.js';

const lookup = toolCall('lookup', { order_id: 'A-17' });
const search = toolCall('search_orders', { status: 'shipped' });

/** One turn in which `call` runs once and returns `result(call)`. */
function afterOne(result: (call: ToolCall) => ToolResult, call = lookup, policy = {}) {
  return turnResulting(start(policy).state, [checked(call)], result, 1_000);
}

describe('every retry reason has exactly one rule', () => {
  it('maps all reasons of the taxonomy', () => {
    expect(Object.keys(HINT_ACTIONS).sort()).toEqual(Object.values(RetryReason).sort());
  });
});

describe('repair: the model retries with the structured error in front of it', () => {
  it.each<[string, (c: ToolCall) => ToolResult, unknown]>([
    [
      'invalid_arguments, restricted',
      (c) => failed(c, 'invalid_arguments', { restrictToTool: true }),
      { tool: 'lookup' },
    ],
    ['invalid_arguments, unrestricted', (c) => failed(c, 'invalid_arguments'), 'auto'],
    [
      'malformed_arguments, restricted',
      (c) => failed(c, 'malformed_arguments', { restrictToTool: true }),
      { tool: 'lookup' },
    ],
    [
      'missing_fields, restricted',
      (c) => failed(c, 'missing_fields', { restrictToTool: true, missingFields: ['order_id'] }),
      { tool: 'lookup' },
    ],
    ['semantic_error', (c) => failed(c, 'semantic_error'), 'auto'],
    ['semantic_error, restricted', (c) => failed(c, 'semantic_error', { restrictToTool: true }), { tool: 'lookup' }],
    ['validation_failed (validator post-hook)', (c) => validatorFailed(c), 'auto'],
  ])('%s → call_model with toolChoice %j', (_name, result, toolChoice) => {
    const plan = afterOne(result);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice, tools: [...TOOLS] });
    expect(plan.record).toEqual([result(lookup)]);
    expect(plan.notes).toEqual([]);
    expect(plan.state.blocked).toEqual({});
  });

  it('a call refused in the workflow never runs: the repair turn follows admission directly', () => {
    const failure = failed(lookup, 'invalid_arguments', { restrictToTool: true });
    const plan = turnWith(start().state, [checked(lookup, { failure })]);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: { tool: 'lookup' }, tools: [...TOOLS] });
    expect(plan.record).toEqual([failure]);
    expect(plan.state.toolCallsUsed).toBe(0);
  });

  // Regression: a repair restricts the next turn to a tool that the same batch disabled, so the model is
  // asked for `toolChoice: { tool: 'lookup' }` with `lookup` missing from `tools` (providers reject that).
  it('a forced tool choice always names a tool the model is given', () => {
    const second = toolCall('lookup', { order_id: 'B-2' }, '1.2');
    const failure = failed(lookup, 'invalid_arguments', { restrictToTool: true });
    const admitted = turnWith(start().state, [checked(lookup, { failure }), checked(second)]);
    const plan = planResumeWith(admitted, [failed(second, 'tool_unavailable')]);
    const step = stepOf(plan, 'call_model');
    if (typeof step.toolChoice === 'object') expect(step.tools).toContain(step.toolChoice.tool);
  });
});

describe('missing fields only a human can supply → await_clarification', () => {
  it("asks the hint's clarifying question, with the fields and an example", () => {
    const hint = {
      missingFields: ['email'],
      exampleInput: { order_id: 'A-1', email: 'a@b.c' },
      clarifyingQuestion: 'Which email is on the order?',
    };
    const plan = afterOne((c) => failed(c, 'missing_fields', { ...hint, restrictToTool: true }));
    expect(stepOf(plan, 'await_clarification').clarification).toEqual({
      id: 'q1',
      question: 'Which email is on the order?',
      tool: 'lookup',
      missingFields: ['email'],
      exampleInput: hint.exampleInput,
    });
    expect(plan.state).toMatchObject({ phase: 'awaiting_clarification', waitingSince: 1_000, questions: 1 });
    expect(plan.record).toHaveLength(1);
  });

  it("with missingFieldsFrom: 'user', asks for the missing fields even without a question", () => {
    const plan = afterOne(
      (c) => failed(c, 'missing_fields', { missingFields: ['order_id', 'email'], restrictToTool: true }),
      lookup,
      { missingFieldsFrom: 'user' },
    );
    const { clarification } = stepOf(plan, 'await_clarification');
    // For the end user: what is missing in words, never the tool's name (the model gets both when answered).
    expect(clarification.question).toBe(
      'I need a bit more information: the order ID and the email. Could you provide them?',
    );
    expect(clarification).toMatchObject({ tool: 'lookup', missingFields: ['order_id', 'email'] });
    const one = afterOne(
      (c) => failed(c, 'missing_fields', { missingFields: ['email'], restrictToTool: true }),
      lookup,
      { missingFieldsFrom: 'user' },
    );
    expect(stepOf(one, 'await_clarification').clarification.question).toBe(
      'I need a bit more information: the email. Could you provide it?',
    );
  });

  it("with missingFieldsFrom: 'user', words the question with the fields' labels (their descriptions)", () => {
    const plan = afterOne(
      (c) =>
        failed(c, 'missing_fields', {
          missingFields: ['orderId', 'email'],
          missingFieldLabels: ['your order number, like A-1001', 'the email on the order'],
        }),
      lookup,
      { missingFieldsFrom: 'user' },
    );
    const { question } = stepOf(plan, 'await_clarification').clarification;
    expect(question).toBe(
      'I need a bit more information: your order number, like A-1001; and the email on the order. Could you provide them?',
    );
    expect(question).not.toContain('lookup');
    expect(question).not.toContain('orderId');
  });

  it('numbers questions across the run', () => {
    const first = afterOne((c) => failed(c, 'missing_fields', { clarifyingQuestion: 'Which order?' }));
    const answered = drive({
      model: [toolCallsReply([rawCall('lookup')]), toolCallsReply([rawCall('lookup', { x: 1 })]), textReply('ok')],
      tool: (c) => failed(c, 'missing_fields', { clarifyingQuestion: `Which order for ${JSON.stringify(c.args)}?` }),
      answer: () => 'A-17',
    });
    expect(stepOf(first, 'await_clarification').clarification.id).toBe('q1');
    expect(
      answered.plans.flatMap((p) => (p.step.type === 'await_clarification' ? [p.step.clarification.id] : [])),
    ).toEqual(['q1', 'q2']);
  });
});

describe('timeout / rate_limited → back off and re-run the same call, no model turn', () => {
  it('re-runs within the per-turn budget, then hands the failure to the model', () => {
    const trace = drive({
      model: [toolCallsReply([rawCall('lookup', lookup.args)]), textReply('gave up')],
      tool: (c) => failed(c, 'timeout'),
    });
    expect(trace.executed).toHaveLength(DEFAULT_POLICY.retryBudgetPerTurn);
    expect(trace.modelCalls).toHaveLength(2);
    const backOffs = trace.plans.flatMap((p) => (p.step.type === 'back_off' ? [p.step] : []));
    expect(backOffs).toHaveLength(2);
    for (const b of backOffs)
      expect(b.next).toEqual({ type: 'execute_tools', calls: [{ ...lookup, toolCallId: '1.1' }] });
    // Exponential: ~1 s then ~2 s, each within ±20 %.
    expect(backOffs[0]!.delayMs).toBeGreaterThanOrEqual(800);
    expect(backOffs[0]!.delayMs).toBeLessThanOrEqual(1_200);
    expect(backOffs[1]!.delayMs).toBeGreaterThanOrEqual(1_600);
    expect(backOffs[1]!.delayMs).toBeLessThanOrEqual(2_400);
    expect(trace.records.map((r) => r.status)).toEqual(['error']);
  });

  it("honours the tool's retry-after as the floor, with full jitter above it", () => {
    const plan = afterOne((c) => failed(c, 'rate_limited', { retryAfterMs: 2_500 }));
    const step = stepOf(plan, 'back_off');
    expect(step).toMatchObject({
      reason: 'back-off for lookup: rate limited',
      next: { type: 'execute_tools', calls: [lookup] },
    });
    expect(step.delayMs).toBeGreaterThanOrEqual(2_500);
    expect(step.delayMs).toBeLessThan(2_500 + DEFAULT_POLICY.backoff.initialMs);
    expect(plan.record).toEqual([]);
    expect(plan.state.phase).toBe('backing_off');
  });

  it('re-runs only the transient calls, and records the batch whole in call order', () => {
    const other = toolCall('search_orders', {}, '1.2');
    const admitted = turnWith(start().state, [checked(lookup), checked(other)]);
    const backOff = planResumeWith(admitted, [failed(lookup, 'timeout'), ok(other)]);
    expect(stepOf(backOff, 'back_off').next).toEqual({ type: 'execute_tools', calls: [lookup] });
    const done = planResumeWith(backOff, [ok(lookup)]);
    expect(done.record).toEqual([ok(lookup), ok(other)]);
    expect(stepOf(done, 'call_model').toolChoice).toBe('auto');
  });

  it("never re-runs a side-effecting ('once') call", () => {
    const plan = turnResulting(start().state, [checked(lookup, { sideEffects: 'once' })], (c) => failed(c, 'timeout'));
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
    expect(plan.record).toEqual([failed(lookup, 'timeout')]);
  });

  it('computes the same jittered delay for the same call and attempt, within ±jitter', () => {
    const policy = DEFAULT_POLICY.backoff;
    const delays = Array.from({ length: 40 }, (_, i) => backoffDelay(policy, 3, `lookup#${i}`));
    expect(delays).toEqual(Array.from({ length: 40 }, (_, i) => backoffDelay(policy, 3, `lookup#${i}`)));
    for (const d of delays) expect(Math.abs(d - 4_000)).toBeLessThanOrEqual(4_000 * policy.jitter);
    expect(new Set(delays).size).toBeGreaterThan(10);
    // With a retry-after: at least it, plus full jitter over the step's exponential, spread by key.
    const after = Array.from({ length: 40 }, (_, i) => backoffDelay(policy, 2, `k${i}`, 1_234.2));
    for (const d of after) expect(d).toBeGreaterThanOrEqual(1_235);
    for (const d of after) expect(d).toBeLessThan(1_235 + 2_000);
    expect(new Set(after).size).toBeGreaterThan(30);
    expect(Math.max(...after) - Math.min(...after)).toBeGreaterThan(1_000);
  });

  it('never waits longer than maxMs on its own, jitter included, and still jitters at the cap', () => {
    const policy = DEFAULT_POLICY.backoff;
    const delays = Array.from({ length: 40 }, (_, i) => backoffDelay(policy, 12, `k${i}`));
    expect(Math.max(...delays)).toBeLessThanOrEqual(policy.maxMs);
    expect(Math.max(...delays)).toBeGreaterThan(policy.maxMs * 0.9);
    expect(new Set(delays).size).toBeGreaterThan(10); // still spread out at the cap
  });

  it('gives runs carried from before maxRetryAfterMs existed the default, not NaN', () => {
    const { maxRetryAfterMs: _, ...older } = DEFAULT_POLICY.backoff;
    const delay = backoffDelay(older as typeof DEFAULT_POLICY.backoff, 1, 'k', 90_000);
    expect(delay).toBeGreaterThanOrEqual(90_000);
    expect(delay).toBeLessThan(91_000);
  });

  it('waits out a retry-after longer than maxMs, up to maxRetryAfterMs', () => {
    const plan = afterOne((c) => failed(c, 'rate_limited', { retryAfterMs: 90_000 }));
    expect(stepOf(plan, 'back_off').delayMs).toBeGreaterThanOrEqual(90_000);
    expect(stepOf(plan, 'back_off').delayMs).toBeLessThan(91_000);
  });

  it('waits once for a batch with two transient failures, as long as the slower of the two needs', () => {
    const other = toolCall('search_orders', {}, '1.2');
    for (const [first, second] of [
      [1_000, 3_000],
      [3_000, 1_000],
    ]) {
      const admitted = turnWith(start().state, [checked(lookup), checked(other)]);
      const plan = planResumeWith(admitted, [
        failed(lookup, 'rate_limited', { retryAfterMs: first }),
        failed(other, 'rate_limited', { retryAfterMs: second }),
      ]);
      const step = stepOf(plan, 'back_off');
      expect(step).toMatchObject({ next: { type: 'execute_tools', calls: [lookup, other] } });
      // As long as the slower of the two needs: its retry-after and its jitter.
      expect(step.delayMs).toBeGreaterThanOrEqual(3_000);
      expect(step.delayMs).toBeLessThan(4_000);
    }
  });

  it('honours a custom maxRetryAfterMs: waits up to it, hands longer ones to the model', () => {
    const policy = { backoff: { maxRetryAfterMs: 5_000 } };
    const waited = stepOf(
      afterOne((c) => failed(c, 'rate_limited', { retryAfterMs: 4_000 }), lookup, policy),
      'back_off',
    ).delayMs;
    expect(waited).toBeGreaterThanOrEqual(4_000);
    expect(waited).toBeLessThan(5_000);
    const tooLong = afterOne((c) => failed(c, 'rate_limited', { retryAfterMs: 6_000 }), lookup, policy);
    expect(stepOf(tooLong, 'call_model').toolChoice).toBe('auto');
    expect(tooLong.record).toMatchObject([{ retryHint: { retryAfterMs: 6_000 } }]);
  });

  it('does not wait out a retry-after beyond maxRetryAfterMs: the model gets the failure and its hint', () => {
    const plan = afterOne((c) => failed(c, 'rate_limited', { retryAfterMs: 3_600_000 }));
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
    expect(plan.record).toMatchObject([{ status: 'error', retryHint: { retryAfterMs: 3_600_000 } }]);
  });
});

describe("tool_unavailable → the tool leaves the model's tools, with a note", () => {
  it('for the rest of the run by default; a later call to it is refused without running', () => {
    const trace = drive({
      model: [toolCallsReply([rawCall('lookup')]), toolCallsReply([rawCall('lookup')]), textReply('sorry')],
      tool: (c) => failed(c, 'tool_unavailable'),
    });
    expect(trace.executed).toHaveLength(1);
    expect(trace.modelCalls.map((s) => s.tools.includes('lookup'))).toEqual([true, false, false]);
    expect(trace.notes).toContain(
      'lookup is unavailable and has been removed from your tools for the rest of this run.',
    );
    const refused = trace.records[1]!;
    expect(refused).toMatchObject({
      status: 'error',
      error: { code: 'unknown_tool', message: 'lookup is disabled: lookup failed: tool_unavailable.' },
      retryHint: { reason: 'invalid_arguments', tool: 'lookup', availableTools: ['search_orders', 'refund'] },
    });
  });

  it('for `disableToolForTurns` model turns when set', () => {
    const trace = drive({
      policy: { disableToolForTurns: 2 },
      model: [
        toolCallsReply([rawCall('lookup')]),
        toolCallsReply([rawCall('search_orders')]),
        toolCallsReply([rawCall('search_orders', { p: 2 })]),
        textReply('done'),
      ],
      tool: (c) => (c.name === 'lookup' ? failed(c, 'tool_unavailable') : ok(c)),
    });
    expect(trace.modelCalls.map((s) => s.tools.includes('lookup'))).toEqual([true, false, false, true]);
    expect(trace.notes).toContain('lookup is unavailable and has been removed from your tools for 2 turn(s).');
  });
});

describe('malformed_response → this exact call is blocked', () => {
  it.each(['output_not_json', 'output_schema_violation'] as const)(
    '%s: refused next time as loop_detected, not run',
    (code) => {
      const trace = drive({
        model: [
          toolCallsReply([rawCall('search_orders', search.args)]),
          toolCallsReply([rawCall('search_orders', search.args), rawCall('search_orders', { status: 'placed' })]),
          textReply('done'),
        ],
        tool: (c) =>
          c.args && typeof c.args === 'object' && 'status' in c.args && c.args.status === 'shipped'
            ? failed(c, code)
            : ok(c),
      });
      expect(trace.executed.map((c) => c.args)).toEqual([search.args, { status: 'placed' }]);
      expect(trace.records[1]).toMatchObject({ toolCallId: '2.1', error: { code: 'loop_detected' } });
      expect(trace.records[2]).toMatchObject({ toolCallId: '2.2', status: 'ok' });
    },
  );
});

describe('partial_data → keep what came, the model continues', () => {
  it('records the partial result and calls the model with auto; nothing is blocked', () => {
    const result = (c: ToolCall) => failed(c, 'partial_data', { nextInput: { page: 2 } }, { orders: ['A-1'] });
    const plan = afterOne(result, search);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    expect(plan.record).toEqual([result(search)]);
    expect(plan.state.blocked).toEqual({});
    expect(plan.state.disabled).toEqual({});
  });
});

describe('internal_error / rejected → inform the model', () => {
  it.each<[string, (c: ToolCall) => ToolResult]>([
    ['internal_error', (c) => failed(c, 'internal_error')],
    ['post_hook_error', (c) => failed(c, 'post_hook_error')],
    ['rejected_by_human', (c) => failed(c, 'rejected_by_human')],
  ])('%s → call_model auto with the failure recorded, nothing else changes', (_code, result) => {
    const plan = afterOne(result);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    expect(plan.record).toEqual([result(lookup)]);
    expect(plan.notes).toEqual([]);
    expect(plan.state).toMatchObject({ blocked: {}, disabled: {}, clarification: null, finalizing: null });
  });
});

describe('a clarifying question in the hint reaches a person, whatever the rule of the failure', () => {
  it.each<ToolErrorCode>(['internal_error', 'rejected_by_human', 'retry_budget_exceeded', 'cancelled', 'partial_data'])(
    '%s',
    (code) => {
      const plan = afterOne((c) => failed(c, code, { clarifyingQuestion: 'Which warehouse?' }));
      expect(stepOf(plan, 'await_clarification').clarification).toEqual({
        id: 'q1',
        question: 'Which warehouse?',
        tool: 'lookup',
      });
    },
  );

  it('timeout, once its re-runs are used up', () => {
    const plan = afterOne((c) => failed(c, 'timeout', { clarifyingQuestion: 'Which warehouse?' }), lookup, {
      retryBudgetPerTurn: 1,
    });
    expect(stepOf(plan, 'await_clarification').clarification).toEqual({
      id: 'q1',
      question: 'Which warehouse?',
      tool: 'lookup',
    });
  });
});

function planResumeWith(plan: ReturnType<typeof turnWith>, results: readonly ToolResult[]) {
  stepOf(plan, plan.step.type === 'back_off' ? 'back_off' : 'execute_tools');
  return planResume(plan.state, results, 2_000);
}
