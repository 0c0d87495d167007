/**
 * Run-wide caps: model turns, tool calls, failed batches in a row, and the time budget (workflow
 * time, not counting waits for a human). Each ends the run with a forced final turn and a reason.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { planClarificationAnswer, planReviewed } from './plan-human.js';
import { planResume } from './plan-resume.js';
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
  type World,
} from './testing.js';

const HOUR = 3_600_000;
const FINAL_TURN = { type: 'call_model', toolChoice: 'none', tools: [] };
const finalNote = (reason: string) => `Stop calling tools (${reason}). Give your final answer now from what you have.`;

/** A model making one lookup per turn (distinct arguments, so no loop), `outcomes[i]` answering turn i+1. */
function lookups(outcomes: readonly ((c: ToolCall) => ToolResult)[], policy: World['policy'] = {}): World {
  const replies = outcomes.map((_, i) => toolCallsReply([rawCall('lookup', { order_id: i + 1 })]));
  return {
    policy,
    model: [...replies, textReply('Final answer.')],
    tool: (c) => outcomes[Number(c.toolCallId.split('.')[0]) - 1]!(c),
  };
}
const good = (c: ToolCall) => ok(c);
const bad = (c: ToolCall) => failed(c, 'internal_error');

describe('maxTurns', () => {
  it('after maxTurns model turns, forces a final turn without tools', () => {
    const trace = drive(lookups([good, good], { maxTurns: 2 }));
    expect(trace.modelCalls).toHaveLength(3);
    expect(trace.modelCalls[2]).toEqual(FINAL_TURN);
    expect(trace.notes).toEqual([finalNote('max turns (2) reached')]);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Final answer.', reason: 'max turns (2) reached' });
  });

  // Regression: completeBatch asks the human (escalation or a hint's clarifying question) before it checks
  // the caps, and planClarificationAnswer never checks them: a run whose batches keep producing
  // questions goes past maxTurns (and maxConsecutiveFailedBatches, and the time budget) for ever.
  it('holds when every batch asks the human a question', () => {
    const asks = (c: ToolCall) =>
      failed(c, 'missing_fields', { clarifyingQuestion: 'Which order?', missingFields: ['order_id'] });
    const trace = drive({ ...lookups([asks, asks, asks, asks, asks, asks], { maxTurns: 2 }), answer: () => 'any' });
    expect(trace.modelCalls.filter((s) => s.tools.length > 0).length).toBeLessThanOrEqual(2);
    expect(trace.last.step).toMatchObject({ type: 'finish', reason: 'max turns (2) reached' });
  });
});

describe('maxCallsPerTurn', () => {
  it("runs the first calls of a huge reply and refuses the rest as too_many_calls, so nothing reaches Temporal's limits", () => {
    const reply = toolCallsReply(Array.from({ length: 1_000 }, (_, i) => rawCall('lookup', { order_id: i })));
    const trace = drive({
      policy: { maxToolCalls: 5_000 },
      model: [reply, textReply('Checked the first 32.')],
      tool: good,
    });
    expect(trace.executed).toHaveLength(32);
    expect(trace.records).toHaveLength(1_000);
    expect(trace.records.slice(32).every((r) => r.status === 'error' && r.error.code === 'too_many_calls')).toBe(true);
    expect(trace.records[32]).toMatchObject({
      toolCallId: '1.33',
      retryHint: {
        reason: 'budget_exceeded',
        message: 'Not run: a turn runs at most 32 calls; call again for the rest.',
      },
    });
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Checked the first 32.', reason: null });
  });
});

describe('maxToolCalls', () => {
  const twoCalls = toolCallsReply([rawCall('lookup', { order_id: 1 }), rawCall('search_orders')]);

  it('refuses a batch that would cross the cap whole, then forces a final turn', () => {
    const trace = drive({
      policy: { maxToolCalls: 3 },
      model: [twoCalls, twoCalls, textReply('Final answer.')],
      tool: good,
    });
    expect(trace.executed).toHaveLength(2);
    expect(trace.records.slice(2)).toMatchObject([
      { toolCallId: '2.1', error: { code: 'tool_call_cap_exceeded' } },
      { toolCallId: '2.2', error: { code: 'tool_call_cap_exceeded' } },
    ]);
    expect(trace.modelCalls[2]).toEqual(FINAL_TURN);
    expect(stepOf(trace.last, 'finish').reason).toBe('tool call cap (3) reached');
  });

  // Regression: planToolCalls sets `finalizing` itself, so finalize() (called from completeBatch) takes its
  // "already finalizing" branch and never adds the note that tells the model to answer now — unlike
  // every other forced final turn (loops, maxTurns, failed batches, time budget, cancel).
  it('tells the model why it must answer now, like every forced final turn', () => {
    const trace = drive({
      policy: { maxToolCalls: 3 },
      model: [twoCalls, twoCalls, textReply('Final answer.')],
      tool: good,
    });
    expect(trace.notes).toEqual([finalNote('tool call cap (3) reached')]);
  });

  it('admits a batch that reaches the cap exactly', () => {
    const oneCall = toolCallsReply([rawCall('refund', { order_id: 1 })]);
    const trace = drive({ policy: { maxToolCalls: 3 }, model: [twoCalls, oneCall, textReply('done')], tool: good });
    expect(trace.executed).toHaveLength(3);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'done', reason: null });
    expect(trace.last.state.toolCallsUsed).toBe(3);
  });

  it('does not count calls refused in the workflow', () => {
    const failure = failed(toolCall('lookup'), 'invalid_arguments');
    const plan = turnWith(start({ maxToolCalls: 1 }).state, [
      checked(toolCall('lookup'), { failure }),
      checked(toolCall('refund', {}, '1.2')),
    ]);
    expect(stepOf(plan, 'execute_tools').calls.map((c) => c.name)).toEqual(['refund']);
    expect(plan.state.toolCallsUsed).toBe(1);
  });
});

describe('maxConsecutiveFailedBatches', () => {
  it('forces a final turn after that many batches in a row in which every call failed', () => {
    const trace = drive(lookups([bad, bad, bad], { maxConsecutiveFailedBatches: 3 }));
    expect(trace.modelCalls[3]).toEqual(FINAL_TURN);
    expect(stepOf(trace.last, 'finish').reason).toBe('3 tool batches in a row failed');
  });

  it('a batch with any success breaks the streak', () => {
    const trace = drive(lookups([bad, bad, good, bad, bad], { maxConsecutiveFailedBatches: 3 }));
    expect(trace.modelCalls.every((s) => s.tools.length > 0)).toBe(true);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Final answer.', reason: null });
  });

  // Regression: partial_data is progress (seed 002: keep what came, fetch the next page), yet a batch of
  // partial results counts as "every call failed": paging through 6 pages is cut off at page 5.
  it('paging through partial data is not a failed streak', () => {
    const page = (c: ToolCall) => failed(c, 'partial_data', { nextInput: { page: 2 } }, { orders: [c.toolCallId] });
    const trace = drive(lookups([page, page, page, page, page, page]));
    expect(trace.executed).toHaveLength(6);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Final answer.', reason: null });
  });
});

describe('time budget (workflow time, human waits excluded)', () => {
  const lookup = toolCall('lookup', { order_id: 'A-1' });
  const search = (n: number) => toolCall('search_orders', { page: n });

  it('a long clarification wait does not use it up; active time does', () => {
    let plan = start({ timeBudgetMs: 10_000 }, 0);
    plan = turnResulting(
      plan.state,
      [checked(lookup)],
      (c) => failed(c, 'missing_fields', { clarifyingQuestion: 'Which order?' }),
      1_000,
    );
    stepOf(plan, 'await_clarification');
    plan = planClarificationAnswer(plan.state, 'A-2', 1_000 + HOUR);
    expect(plan.state.humanWaitMs).toBe(HOUR);

    plan = turnResulting(plan.state, [checked(search(1))], ok, HOUR + 6_000);
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto'); // 6 s active
    plan = turnResulting(plan.state, [checked(search(2))], ok, HOUR + 10_000);
    expect(plan.step).toEqual(FINAL_TURN); // 10 s active
    expect(plan.notes).toEqual([finalNote('time budget (10000 ms) used up')]);
  });

  it('a long review wait does not use it up', () => {
    const admitted = turnWith(
      start({ timeBudgetMs: 10_000 }, 0).state,
      [checked(lookup, { needsApproval: true })],
      1_000,
    );
    const reviewed = planReviewed(admitted.state, { '1.1': { type: 'accept' } }, 1_000 + HOUR);
    const plan = planResume(reviewed.state, [ok(lookup)], 3_000 + HOUR);
    expect(plan.state.humanWaitMs).toBe(HOUR);
    expect(stepOf(plan, 'call_model').toolChoice).toBe('auto');
  });

  it('back-off sleeps are active time', () => {
    const trace = drive({
      policy: { timeBudgetMs: 2_000, backoff: { initialMs: 5_000, coefficient: 2, maxMs: 60_000, jitter: 0 } },
      model: [toolCallsReply([rawCall('lookup')]), textReply('Final answer.')],
      tool: (c, run) => (run === 1 ? failed(c, 'timeout') : ok(c)),
    });
    expect(trace.modelCalls[1]).toEqual(FINAL_TURN);
    expect(stepOf(trace.last, 'finish').reason).toBe('time budget (2000 ms) used up');
  });
});
