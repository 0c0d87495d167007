/** Token and cost budgets: usage counted per model, a wrap-up turn near a limit, the end or a person's extension at it. */
import { describe, expect, it } from 'vitest';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { toolError } from '../shared/failures/tool-error.js';
import { runOutcome } from './run-outcome.js';
import type { PolicyOverrides } from './policy.js';
import type { PlannerState, PlanStep } from './plan.js';
import {
  budgetExhausted,
  budgetLimits,
  budgetNear,
  checkBudget,
  planBudgetDecision,
  tenantAllowanceLeft,
  tenantWindowSpent,
} from './plan-budget.js';
import { drive, ok, rawCall, start, stepOf, textWithUsage, toolCall, toolCallsReply } from './testing.js';

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

// ── The budget functions on plain states ─────────────────────────────────────────────────────

/** A run's state under `budget`, having used `tokens` (all input) and `costUsd`, with `more` on top. */
function spending(
  budget: PolicyOverrides['budget'],
  tokens: number,
  costUsd: number,
  more: Partial<PlannerState> = {},
): PlannerState {
  const usage = { inputTokens: tokens, outputTokens: 0, costUsd, calls: 1, byModel: {} };
  return { ...start({ budget }).state, usage, ...more };
}

const callModelStep: PlanStep = { type: 'call_model', toolChoice: 'auto' } as PlanStep;

describe('budget limits, exhaustion and the wrap-up point', () => {
  it("a person's extension adds to the policy's limits; no limit stays none", () => {
    const state = spending({ maxTokens: 1_000, maxCostUsd: 0.1 }, 0, 0, { budgetExtra: { tokens: 500, costUsd: 0.2 } });
    expect(budgetLimits(state)).toEqual({ maxTokens: 1_500, maxCostUsd: 0.3 });
    expect(budgetLimits(spending({}, 0, 0, { budgetExtra: { tokens: 500, costUsd: 0.2 } }))).toEqual({
      maxTokens: null,
      maxCostUsd: null,
    });
  });

  it('a limit is used up when usage reaches it exactly, tokens before cost', () => {
    expect(budgetExhausted(spending({ maxTokens: 100 }, 99, 0))).toBeNull();
    expect(budgetExhausted(spending({ maxTokens: 100 }, 100, 0))).toBe('tokens');
    expect(budgetExhausted(spending({ maxCostUsd: 0.5 }, 10_000, 0.5))).toBe('cost');
    expect(budgetExhausted(spending({ maxTokens: 100, maxCostUsd: 0.5 }, 100, 0.5))).toBe('tokens');
    expect(
      budgetExhausted(spending({ maxTokens: 100 }, 100, 0, { budgetExtra: { tokens: 1, costUsd: 0 } })),
    ).toBeNull();
  });

  it('the wrap-up turn starts at wrapUpAt of a limit, not before', () => {
    const tokens = { maxTokens: 1_000, wrapUpAt: 0.5 };
    expect(budgetNear(spending(tokens, 499, 0))).toBeNull();
    expect(budgetNear(spending(tokens, 500, 0))).toBe('token budget nearly used (500 of 1000 tokens)');
    const cost = { maxCostUsd: 2, wrapUpAt: 0.5 };
    expect(budgetNear(spending(cost, 10_000, 0.99))).toBeNull();
    expect(budgetNear(spending(cost, 10_000, 1))).toBe('cost budget nearly used (1 of 2)');
    // The tenant's window, when the worker said it is near, comes first.
    expect(budgetNear(spending(tokens, 900, 0, { tenantNear: 'tenant window near' }))).toBe('tenant window near');
  });
});

describe('checkBudget', () => {
  const tools: PlanStep = { type: 'execute_tools', calls: [toolCall('lookup')] } as unknown as PlanStep;

  it('at a limit, a step other than finish becomes the end of the run, budget_exhausted', () => {
    const state = spending({ maxTokens: 100 }, 120, 0);
    const plan = checkBudget({ state, step: tools, record: [], notes: ['n'] }, 0);
    const message = 'The run ended: its token budget is used up (120 of 100 tokens).';
    expect(plan).toEqual({
      state: { ...state, phase: 'done' },
      step: {
        type: 'finish',
        answer: message,
        reason: 'budget exhausted: tokens',
        end: { code: 'budget_exhausted', message, fail: false },
      },
      record: [],
      notes: ['n'],
    });
  });

  it('a finish is left as it is, and a run under its limits goes on', () => {
    const over = spending({ maxTokens: 100 }, 120, 0);
    const finish: PlanStep = { type: 'finish', answer: 'Here.', reason: null };
    const done = { state: over, step: finish, record: [], notes: [] };
    expect(checkBudget(done, 0)).toBe(done);
    const under = { state: spending({ maxTokens: 100 }, 50, 0), step: tools, record: [], notes: [] };
    expect(checkBudget(under, 0)).toBe(under);
  });
});

describe('tenantWindowSpent', () => {
  const window = { tenant: 'a', window: 'month', id: '2026-11', limit: 'cost', used: 0.5, max: 0.5 } as const;

  it('asks a person (onExhausted: ask), keeping the step to take if they extend', () => {
    const state = spending({ onExhausted: 'ask' }, 10, 0.5);
    expect(tenantWindowSpent(state, window, '', callModelStep, 7_000)).toEqual({
      state: { ...state, phase: 'awaiting_budget', budgetRequests: 1, waitingSince: 7_000 },
      step: {
        type: 'await_budget',
        request: {
          id: 'b1',
          limit: 'cost',
          maxTokens: null,
          maxCostUsd: null,
          usedTokens: 10,
          usedCostUsd: 0.5,
          tenantWindow: window,
        },
        next: callModelStep,
      },
      record: [],
      notes: [],
    });
  });

  it('else ends the run budget_exhausted, naming the window', () => {
    const state = spending({}, 10, 0.5);
    const message = 'The run ended: tenant "a" has used its monthly cost budget (0.5 of 0.5 USD in 2026-11 UTC).';
    expect(tenantWindowSpent(state, window, 'ignored', callModelStep, 0)).toEqual({
      state: { ...state, phase: 'done' },
      step: {
        type: 'finish',
        answer: message,
        reason: 'budget exhausted: tenant',
        end: { code: 'budget_exhausted', message, fail: false },
      },
      record: [],
      notes: [],
    });
  });

  it("without the window, says the worker's message: its prefix and final period cut, at most 300 characters", () => {
    const answer = (said: string) =>
      stepOf(tenantWindowSpent(spending({}, 0, 0), undefined, said, callModelStep, 0), 'finish').answer;
    expect(answer('The call to m was not sent: tenant "a" spent 0.5 of 0.5 USD.')).toBe(
      'The run ended: tenant "a" spent 0.5 of 0.5 USD.',
    );
    // Only a leading prefix is the worker's framing.
    expect(answer('Refused. The call to m was not sent: over')).toBe(
      'The run ended: Refused. The call to m was not sent: over.',
    );
    expect(answer(`The call to m was not sent: ${'x'.repeat(400)}`)).toBe(`The run ended: ${'x'.repeat(300)}.`);
  });
});

describe('tenantAllowanceLeft', () => {
  it('is what the allowance leaves past what the run used since it was given; none without one', () => {
    expect(tenantAllowanceLeft(spending({}, 10, 0.3))).toBeUndefined();
    const allowance = { tokens: 0, costUsd: 0.5, fromTokens: 0, fromCostUsd: 0.1 };
    // 0.5 − (0.3 − 0.1), rounded to a billionth.
    expect(tenantAllowanceLeft(spending({}, 10, 0.3, { tenantAllowance: allowance }))).toEqual({
      tokens: 0,
      costUsd: 0.3,
    });
    expect(tenantAllowanceLeft(spending({}, 10, 0.7, { tenantAllowance: allowance }))).toBeUndefined();
  });
});

describe('planBudgetDecision', () => {
  const ask = (state: PlannerState, next: PlanStep, now = 1_000) => {
    const plan = checkBudget({ state, step: next, record: [], notes: [] }, now);
    return { plan, step: stepOf(plan, 'await_budget') };
  };
  const tools: PlanStep = { type: 'execute_tools', calls: [toolCall('lookup')] } as unknown as PlanStep;
  const budget = { maxTokens: 100, onExhausted: 'ask' } as const;

  it('stop ends the run budget_exhausted, counting the wait as human time', () => {
    const { plan, step } = ask(spending(budget, 120, 0), tools);
    const message = 'The run ended: its token budget is used up (120 of 100 tokens), and it was not extended.';
    expect(planBudgetDecision(plan.state, step, { type: 'stop' }, 31_000)).toEqual({
      state: { ...plan.state, phase: 'done', waitingSince: null, humanWaitMs: 30_000 },
      step: {
        type: 'finish',
        answer: message,
        reason: 'budget exhausted: tokens',
        end: { code: 'budget_exhausted', message, fail: false },
      },
      record: [],
      notes: [],
    });
  });

  it('an extension adds to what people added before and takes the deferred step in its phase', () => {
    const before = spending(budget, 120, 0, { budgetExtra: { tokens: 10, costUsd: 0 } });
    const { plan, step } = ask(before, tools);
    const extended = planBudgetDecision(plan.state, step, { type: 'extend', tokens: 50 }, 2_000);
    expect(extended).toEqual({
      state: {
        ...plan.state,
        phase: 'tools',
        budgetExtra: { tokens: 60, costUsd: 0 },
        waitingSince: null,
        humanWaitMs: 1_000,
      },
      step: tools,
      record: [],
      notes: [],
    });
    const model = ask(before, callModelStep);
    expect(planBudgetDecision(model.plan.state, model.step, { type: 'extend', tokens: 50 }, 2_000).state.phase).toBe(
      'model',
    );
    const finalizing = ask({ ...before, finalizing: 'limit' }, callModelStep);
    expect(
      planBudgetDecision(finalizing.plan.state, finalizing.step, { type: 'extend', tokens: 50 }, 2_000).state.phase,
    ).toBe('finalizing');
  });

  it('an extension that lets a held review or question go on waits on the person again, from then', () => {
    const review = { type: 'await_review', reviews: [] } as unknown as PlanStep;
    const question = { type: 'await_clarification', clarification: { id: 'q1' } } as unknown as PlanStep;
    for (const [next, phase] of [
      [review, 'awaiting_review'],
      [question, 'awaiting_clarification'],
    ] as const) {
      const { plan, step } = ask(spending(budget, 120, 0), next);
      expect(plan.state.phase).toBe('awaiting_budget');
      const extended = planBudgetDecision(plan.state, step, { type: 'extend', tokens: 50 }, 61_000);
      expect(extended.step).toBe(next);
      // The budget wait is counted, and the person's wait begins at the extension.
      expect(extended.state).toMatchObject({ phase, waitingSince: 61_000, humanWaitMs: 60_000 });
    }
  });

  it('an extension too small asks again, the wait still counted from the first request', () => {
    const { plan, step } = ask(spending(budget, 120, 0), tools);
    const again = planBudgetDecision(plan.state, step, { type: 'extend', tokens: 5 }, 4_000);
    expect(again).toEqual({
      state: {
        ...plan.state,
        budgetExtra: { tokens: 5, costUsd: 0 },
        budgetRequests: 2,
        humanWaitMs: 3_000,
        waitingSince: 4_000,
      },
      step: {
        type: 'await_budget',
        request: { id: 'b2', limit: 'tokens', maxTokens: 105, maxCostUsd: null, usedTokens: 120, usedCostUsd: 0 },
        next: tools,
      },
      record: [],
      notes: [],
    });
  });

  it('a state not waiting adds no human time', () => {
    const { plan, step } = ask(spending(budget, 120, 0), tools);
    const decided = planBudgetDecision({ ...plan.state, waitingSince: null }, step, { type: 'stop' }, 9_000);
    expect(decided.state.humanWaitMs).toBe(0);
  });

  it("an extension of a tenant's window is the run's allowance, and takes the deferred step in its phase", () => {
    const window = { tenant: 'a', window: 'day', id: '2026-11-26', limit: 'tokens', used: 9, max: 9 } as const;
    const state = spending({ onExhausted: 'ask' }, 40, 0.25);
    const decide = (next: PlanStep, from = state) => {
      const asked = tenantWindowSpent(from, window, '', next, 1_000);
      return planBudgetDecision(asked.state, stepOf(asked, 'await_budget'), { type: 'extend', costUsd: 0.1 }, 1_500);
    };
    const plan = decide(callModelStep);
    expect(plan).toEqual({
      state: {
        ...state,
        phase: 'model',
        budgetRequests: 1,
        waitingSince: null,
        humanWaitMs: 500,
        tenantAllowance: { tokens: 0, costUsd: 0.1, fromTokens: 40, fromCostUsd: 0.25 },
      },
      step: callModelStep,
      record: [],
      notes: [],
    });
    expect(decide(callModelStep, { ...state, finalizing: 'limit' }).state.phase).toBe('finalizing');
    expect(decide(tools).state.phase).toBe('tools');
  });
});
