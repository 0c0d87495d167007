/** Token and cost budgets: usage counted per model, a wrap-up turn near a limit, the end or a person's extension at it. */
import { describe, expect, it } from 'vitest';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { toolError } from '../shared/failures/tool-error.js';
import { runOutcome } from './run-outcome.js';
import { tenantAllowanceLeft } from './plan-budget.js';
import { drive, ok, rawCall, stepOf, textWithUsage, toolCallsReply } from './testing.js';

const callsWithUsage = (inputTokens: number, outputTokens: number, costUsd?: number): ModelOutcome => {
  const reply = toolCallsReply([rawCall('lookup', { order_id: 'A-1' })]);
  if (reply.status !== 'ok' || !reply.response) throw new Error('unreachable');
  return {
    status: 'ok',
    response: { ...reply.response, usage: { inputTokens, outputTokens, ...(costUsd !== undefined && { costUsd }) } },
  };
};
const tool = (c: Parameters<typeof ok>[0]) => ok(c);

describe('usage', () => {
  it('is summed over the run and per model', () => {
    const trace = drive({ model: [callsWithUsage(100, 10, 0.01), textWithUsage('Done.', 200, 20, 0.02)], tool });
    expect(trace.last.state.usage).toEqual({
      inputTokens: 300,
      outputTokens: 30,
      costUsd: 0.03,
      calls: 2,
      byModel: { 'test:model': { inputTokens: 300, outputTokens: 30, costUsd: 0.03, calls: 2 } },
    });
  });
});

describe('a token budget', () => {
  it('near its limit, the model is asked for its final answer after the batch; the run ends budget_exhausted with that answer', () => {
    const trace = drive({
      policy: { budget: { maxTokens: 1_000, wrapUpAt: 0.5 } },
      model: [callsWithUsage(500, 50), textWithUsage('Best so far.', 100, 10)],
      tool,
    });
    expect(trace.modelCalls.map((c) => c.toolChoice)).toEqual(['auto', 'none']);
    expect(trace.notes.at(-1)).toMatch(/^Stop calling tools \(token budget nearly used \(550 of 1000 tokens\)\)/);
    const finish = stepOf(trace.last, 'finish');
    expect(finish.answer).toBe('Best so far.');
    expect(runOutcome(trace.last.state, finish)).toEqual({
      status: 'ended',
      code: 'budget_exhausted',
      message: 'token budget nearly used (550 of 1000 tokens)',
    });
  });

  it('at its limit, the run ends budget_exhausted without running the calls, completed (not failed)', () => {
    const trace = drive({ policy: { budget: { maxTokens: 500 } }, model: [callsWithUsage(480, 40)], tool });
    expect(trace.executed).toEqual([]);
    expect(stepOf(trace.last, 'finish')).toMatchObject({
      answer: 'The run ended: its token budget is used up (520 of 500 tokens).',
      end: { code: 'budget_exhausted', fail: false },
    });
  });

  it('a reply that finishes stays an answer even when it crosses the limit', () => {
    const trace = drive({ policy: { budget: { maxTokens: 10 } }, model: [textWithUsage('Here.', 100, 5)] });
    expect(runOutcome(trace.last.state, stepOf(trace.last, 'finish'))).toEqual({ status: 'answered' });
  });
});

describe('a cost budget a person may extend (onExhausted: ask)', () => {
  const policy = { budget: { maxCostUsd: 0.05, onExhausted: 'ask' as const, wrapUpAt: 1 } };

  it('asks, and an extension takes the deferred step; the extension counts toward the limits', () => {
    const requests: unknown[] = [];
    const trace = drive({
      policy,
      model: [callsWithUsage(10, 1, 0.06), textWithUsage('Done.', 10, 1, 0.01)],
      tool,
      budget: (request) => (requests.push(request), { type: 'extend', costUsd: 0.1 }),
    });
    expect(requests).toEqual([
      { id: 'b1', limit: 'cost', maxTokens: null, maxCostUsd: 0.05, usedTokens: 11, usedCostUsd: 0.06 },
    ]);
    expect(trace.executed.map((c) => c.name)).toEqual(['lookup']);
    expect(trace.last.state.budgetExtra).toEqual({ tokens: 0, costUsd: 0.1 });
    expect(trace.last.state.humanWaitMs).toBe(60_000);
    expect(runOutcome(trace.last.state, stepOf(trace.last, 'finish'))).toEqual({ status: 'answered' });
  });

  it('an extension too small asks again with a new id; stop ends the run budget_exhausted', () => {
    const ids: string[] = [];
    const trace = drive({
      policy,
      model: [callsWithUsage(10, 1, 0.2)],
      tool,
      budget: (request) => (
        ids.push(request.id),
        ids.length === 1 ? { type: 'extend', costUsd: 0.01 } : { type: 'stop', reason: 'too costly' }
      ),
    });
    expect(ids).toEqual(['b1', 'b2']);
    expect(trace.executed).toEqual([]);
    expect(stepOf(trace.last, 'finish')).toMatchObject({
      answer: 'The run ended: its cost budget is used up (0.2 of 0.06), and it was not extended (too costly).',
      end: { code: 'budget_exhausted', fail: false },
    });
  });

  it('the wait carries through JSON (continue-as-new) and its phase is awaiting_budget', () => {
    const trace = drive({ policy, model: [callsWithUsage(10, 1, 0.2)], tool, roundTrip: true });
    expect(trace.last.step.type).toBe('await_budget');
    expect(trace.last.state.phase).toBe('awaiting_budget');
  });
});

describe("a tenant's spent budget window", () => {
  const window = { tenant: 'a', window: 'day', id: '2026-11-26', limit: 'tokens', used: 100, max: 100 } as const;
  const spent: ModelOutcome = {
    status: 'error',
    error: toolError(
      'rate_limited',
      'The call to test:model was not sent: tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC).',
    ),
    failure: 'tenant_budget',
    tenantWindow: window,
  };

  it('ends the run budget_exhausted (not failed), naming the window, without waiting', () => {
    const trace = drive({ model: [callsWithUsage(10, 1), spent], tool });
    const finish = stepOf(trace.last, 'finish');
    expect(finish).toMatchObject({ end: { code: 'budget_exhausted', fail: false } });
    expect(finish.answer).toBe(
      'The run ended: tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC).',
    );
    expect(runOutcome(trace.last.state, finish)).toMatchObject({ status: 'ended', code: 'budget_exhausted' });
    expect(trace.modelCalls).toHaveLength(2);
  });

  it('ends the run from the message alone when the outcome does not name the window', () => {
    const { tenantWindow: _, ...bare } = spent as Extract<ModelOutcome, { status: 'error' }>;
    const trace = drive({
      model: [bare],
      policy: { budget: { onExhausted: 'ask' } },
      budget: () => expect.unreachable('no request without a window'),
    });
    expect(stepOf(trace.last, 'finish').answer).toBe(
      'The run ended: tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC).',
    );
  });

  it('near the window (the worker says so), the model is asked for its final answer after the batch; the run ends budget_exhausted with it', () => {
    const reply = callsWithUsage(10, 1);
    const near: ModelOutcome = reply.status === 'ok' ? { ...reply, tenantWindowNear: { ...window, used: 95 } } : reply;
    const trace = drive({ model: [near, textWithUsage('Best so far.', 10, 1)], tool });
    expect(trace.modelCalls.map((c) => c.toolChoice)).toEqual(['auto', 'none']);
    expect(trace.executed.map((c) => c.name)).toEqual(['lookup']);
    const finish = stepOf(trace.last, 'finish');
    expect(finish.answer).toBe('Best so far.');
    expect(runOutcome(trace.last.state, finish)).toEqual({
      status: 'ended',
      code: 'budget_exhausted',
      message: 'tenant "a" has nearly used its daily token budget (95 of 100 tokens in 2026-11-26 UTC)',
    });
  });

  describe('with onExhausted: ask', () => {
    const policy = { budget: { onExhausted: 'ask' as const } };
    it("asks a person naming the window; an extension is this run's allowance past it, counted from then", () => {
      const requests: unknown[] = [];
      const trace = drive({
        policy,
        model: [callsWithUsage(10, 1), spent, textWithUsage('Done.', 30, 5)],
        tool,
        budget: (request) => (requests.push(request), { type: 'extend', tokens: 50 }),
      });
      expect(requests).toEqual([
        {
          id: 'b1',
          limit: 'tokens',
          maxTokens: null,
          maxCostUsd: null,
          usedTokens: 11,
          usedCostUsd: 0,
          tenantWindow: window,
        },
      ]);
      expect(trace.last.state.tenantAllowance).toEqual({ tokens: 50, costUsd: 0, fromTokens: 11, fromCostUsd: 0 });
      expect(trace.last.state.budgetExtra).toBeUndefined();
      expect(tenantAllowanceLeft(trace.last.state)).toEqual({ tokens: 15, costUsd: 0 });
      expect(runOutcome(trace.last.state, stepOf(trace.last, 'finish'))).toEqual({ status: 'answered' });
    });

    it('stop ends the run budget_exhausted naming the window', () => {
      const trace = drive({ policy, model: [spent], budget: () => ({ type: 'stop', reason: 'not today' }) });
      expect(stepOf(trace.last, 'finish')).toMatchObject({
        answer:
          'The run ended: tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC), and it was not extended (not today).',
        end: { code: 'budget_exhausted', fail: false },
      });
    });

    it('an allowance used up leaves none for the next request', () => {
      const state = {
        tenantAllowance: { tokens: 10, costUsd: 0, fromTokens: 0, fromCostUsd: 0 },
        usage: { inputTokens: 8, outputTokens: 2, costUsd: 0, calls: 1, byModel: {} },
      };
      expect(tenantAllowanceLeft(state as never)).toBeUndefined();
    });
  });
});
