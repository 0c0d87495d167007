/**
 * Per-turn retry budgets per (tool, args), loop detection across turns, repair escalation, and a
 * replay of seed 002's production trace (the same broken call sent 17 times).
 */
import { describe, expect, it } from 'vitest';
import type { SideEffects } from '../shared/tools/define-tool.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { runOutcome } from './run-outcome.js';
import {
  checked,
  drive,
  failed,
  keyOf,
  ok,
  rawCall,
  start,
  stepOf,
  textReply,
  toolCall,
  toolCallsReply,
  turnResulting,
  type World,
} from './testing.js';

const search = toolCall('search_orders', { customer: 'Ada', status: 'shipped' });

/** `n` copies of `call` in one batch, with ids 1.1 … 1.n. */
function copies(call: ToolCall, n: number, sideEffects: SideEffects = 'none') {
  return Array.from({ length: n }, (_, i) => checked({ ...call, toolCallId: `1.${i + 1}` }, { sideEffects }));
}

describe('retry budget per (tool, args) per model turn', () => {
  it.each<[SideEffects, number]>([
    ['none', 3],
    ['idempotent', 3],
    ['once', 1],
  ])("sideEffects '%s': %i of 4 identical calls run, the rest are refused without running", (sideEffects, budget) => {
    const ran: ToolCall[] = [];
    const plan = turnResulting(start().state, copies(search, 4, sideEffects), (c) => (ran.push(c), ok(c)));
    expect(ran).toHaveLength(budget);
    expect(plan.record.map((r) => r.toolCallId)).toEqual(['1.1', '1.2', '1.3', '1.4']);
    expect(plan.record.map((r) => (r.status === 'error' ? r.error.code : r.status))).toEqual(
      Array.from({ length: 4 }, (_, i) => (i < budget ? 'ok' : 'retry_budget_exceeded')),
    );
    expect(plan.state.toolCallsUsed).toBe(budget);
  });

  it('follows the policy', () => {
    const plan = turnResulting(start({ retryBudgetPerTurn: 1 }).state, copies(search, 2), ok);
    expect(plan.record.map((r) => r.status)).toEqual(['ok', 'error']);
  });

  it('counts back-off re-runs: two identical timed-out calls get one re-run between them', () => {
    const trace = drive({
      model: [
        toolCallsReply([rawCall('search_orders', search.args), rawCall('search_orders', search.args)]),
        textReply('later'),
      ],
      tool: (c) => failed(c, 'timeout'),
    });
    expect(trace.executed).toHaveLength(3);
    expect(trace.plans.filter((p) => p.step.type === 'back_off')).toHaveLength(1);
  });

  it('starts over on a new model turn', () => {
    const reply = toolCallsReply([1, 2, 3].map(() => rawCall('search_orders', search.args)));
    const trace = drive({ model: [reply, reply, textReply('done')], tool: (c) => ok(c) });
    expect(trace.executed).toHaveLength(6);
    expect(trace.records.every((r) => r.status === 'ok')).toBe(true);
  });
});

/** A model that sends the same call `times` times, then answers; the tool always fails with `fail`. */
function stubborn(times: number, fail: (c: ToolCall, run: number) => ToolResult, policy: World['policy'] = {}): World {
  const reply = toolCallsReply([rawCall('search_orders', search.args)]);
  return {
    policy,
    model: [...Array.from({ length: times }, () => reply), textReply('I could not search.')],
    tool: fail,
  };
}

describe('loop detection across turns', () => {
  it('the same call failing the same way `loopThreshold` times is blocked and escalated to a human', () => {
    const trace = drive(stubborn(5, (c) => failed(c, 'semantic_error')));
    expect(trace.executed).toHaveLength(3);
    const { clarification } = stepOf(trace.last, 'await_clarification');
    expect(clarification).toEqual({
      id: 'q1',
      question: 'search_orders keeps failing with semantic_error. How should I proceed?',
    });
    expect(trace.last.state.turn).toBe(3);
    expect(trace.last.state.blocked[keyOf(search)]).toBe(
      'search_orders failed the same way (semantic_error) 3 times with these arguments.',
    );
  });

  it("with onLoop: 'finalize', forces a final turn with no tools and tells the model why", () => {
    const trace = drive(stubborn(3, (c) => failed(c, 'internal_error'), { onLoop: 'finalize' }));
    expect(trace.executed).toHaveLength(3);
    const final = trace.modelCalls[3]!;
    expect(final).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(trace.notes).toContain(
      'Stop calling tools (search_orders keeps failing with internal_error). Give your final answer now from what you have.',
    );
    expect(stepOf(trace.last, 'finish')).toEqual({
      type: 'finish',
      answer: 'I could not search.',
      reason: 'search_orders keeps failing with internal_error',
    });
    expect(runOutcome(trace.last.state, stepOf(trace.last, 'finish'))).toMatchObject({
      status: 'ended',
      code: 'loop_detected',
    });
  });

  it('follows loopThreshold', () => {
    const trace = drive(stubborn(5, (c) => failed(c, 'semantic_error'), { loopThreshold: 2 }));
    expect(trace.last.state.turn).toBe(2);
    expect(trace.last.step.type).toBe('await_clarification');
  });

  it('a different failure, or a success, starts the count again', () => {
    const codes = ['semantic_error', 'internal_error', 'semantic_error', 'semantic_error'] as const;
    const changing = drive(stubborn(4, (c, run) => failed(c, codes[run - 1]!)));
    expect(changing.last.step).toMatchObject({ type: 'finish', answer: 'I could not search.' });

    const healed = drive(stubborn(4, (c, run) => (run === 3 ? ok(c) : failed(c, 'semantic_error'))));
    expect(healed.executed).toHaveLength(4);
    expect(healed.last.step.type).toBe('finish');
  });

  it('escalates when one tool still gets invalid calls after maxRepairsPerTool repairs', () => {
    const replies = [1, 2, 3, 4].map((n) => toolCallsReply([rawCall('lookup', { order_id: n })]));
    const trace = drive({
      model: [...replies, textReply('?')],
      precheck: (c) => failed(c, 'invalid_arguments', { restrictToTool: true }),
    });
    expect(trace.executed).toEqual([]);
    expect(trace.modelCalls.slice(1).map((s) => s.toolChoice)).toEqual([
      { tool: 'lookup' },
      { tool: 'lookup' },
      { tool: 'lookup' },
    ]);
    expect(stepOf(trace.last, 'await_clarification').clarification.question).toBe(
      'lookup still gets invalid calls after 3 repairs. How should I proceed?',
    );
  });

  it("a successful call resets the tool's repair count", () => {
    const replies = [1, 2, 3, 4, 5].map((n) => toolCallsReply([rawCall('lookup', { order_id: n })]));
    const trace = drive({
      model: [...replies, textReply('done')],
      precheck: (c) => ((c.args as { order_id: number }).order_id === 3 ? undefined : failed(c, 'invalid_arguments')),
      tool: (c) => ok(c),
    });
    expect(trace.last.step.type).toBe('finish');
  });
});

describe('seed 002: the same search_orders call sent 17 times, each returning truncated JSON', () => {
  const truncated = (c: ToolCall) =>
    failed(c, 'output_not_json', { message: 'Unexpected end of JSON input at position 4096' });

  it("runs it once and forces the final answer at the loop threshold (onLoop: 'finalize')", () => {
    const trace = drive(stubborn(17, truncated, { onLoop: 'finalize' }));
    expect(trace.executed).toHaveLength(1);
    // Turn 1 runs and blocks it; turns 2-3 are refused without running; turn 4 is the final turn.
    expect(trace.records.map((r) => (r.status === 'error' ? r.error.code : r.status))).toEqual([
      'output_not_json',
      'loop_detected',
      'loop_detected',
    ]);
    expect(trace.modelCalls).toHaveLength(4);
    expect(trace.modelCalls[3]).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    // The stubborn model calls it a fourth time anyway: the run ends instead of running it.
    expect(stepOf(trace.last, 'finish')).toEqual({
      type: 'finish',
      answer: 'The run ended (search_orders keeps failing with output_not_json).',
      reason: 'search_orders keeps failing with output_not_json',
    });
  });

  it('runs it once and asks the human at the loop threshold (default policy)', () => {
    const trace = drive(stubborn(17, truncated));
    expect(trace.executed).toHaveLength(1);
    expect(trace.modelCalls).toHaveLength(3);
    expect(stepOf(trace.last, 'await_clarification').clarification.question).toBe(
      'search_orders keeps failing with output_not_json. How should I proceed?',
    );
  });
});
