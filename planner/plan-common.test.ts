/** The steps every planner function shares: the model's tool choice, the forced final turn, human waits, and the caps. */
import { describe, expect, it } from 'vitest';
import { callModel, capReached, endWait, finalize } from './plan-common.js';
import type { PlannerState } from './plan.js';
import { start, stepOf } from './testing.js';

const fresh = (more: Partial<PlannerState> = {}): PlannerState => ({ ...start().state, ...more });

describe('callModel', () => {
  it("keeps the caller's choice while its tools are enabled", () => {
    expect(stepOf(callModel(fresh(), 'none'), 'call_model').toolChoice).toBe('none');
    expect(stepOf(callModel(fresh(), { tool: 'lookup' }), 'call_model').toolChoice).toEqual({ tool: 'lookup' });
  });

  it('a forced tool that is disabled becomes auto, and the tool is not offered', () => {
    const state = fresh({ disabled: { lookup: { reason: 'broken', untilTurn: null } } });
    const step = stepOf(callModel(state, { tool: 'lookup' }), 'call_model');
    expect(step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: ['search_orders', 'refund'] });
  });
});

describe('finalize', () => {
  it('forces a final turn without tools, telling the model why; a limit by default', () => {
    expect(finalize(fresh(), 'max turns (3) reached')).toEqual({
      state: {
        ...fresh(),
        phase: 'finalizing',
        finalizing: 'max turns (3) reached',
        finalizingCode: 'limit_reached',
        clarification: null,
        reviews: [],
        lastToolChoice: 'none',
      },
      step: { type: 'call_model', toolChoice: 'none', tools: [] },
      record: [],
      notes: ['Stop calling tools (max turns (3) reached). Give your final answer now from what you have.'],
    });
  });

  it('a run already finalizing keeps its first reason and code, and is not told again', () => {
    const first = finalize(fresh(), 'time budget (10 ms) used up').state;
    const again = finalize(first, 'token budget nearly used', [], [], 'budget_exhausted');
    expect(again.state.finalizing).toBe('time budget (10 ms) used up');
    expect(again.state.finalizingCode).toBe('limit_reached');
    expect(again.notes).toEqual([]);
    expect(stepOf(again, 'call_model').toolChoice).toBe('none');
  });
});

describe('endWait', () => {
  it("adds a human wait's length to the time not counted against the budget; no wait adds nothing", () => {
    expect(endWait(fresh({ waitingSince: 2_000, humanWaitMs: 500 }), 5_000)).toMatchObject({
      waitingSince: null,
      humanWaitMs: 3_500,
    });
    const idle = fresh({ waitingSince: null, humanWaitMs: 500 });
    expect(endWait(idle, 5_000)).toBe(idle);
  });
});

describe('capReached', () => {
  it('names the cap that ends the run, as a limit', () => {
    const capped = (more: Partial<PlannerState>, now = 0) =>
      capReached({ ...fresh(more), policy: { ...fresh().policy, maxTurns: 3, timeBudgetMs: 5_000 } }, now);
    expect(capped({ turn: 3 })).toEqual({ reason: 'max turns (3) reached', code: 'limit_reached' });
    expect(capped({ failedBatchStreak: 5 })).toEqual({
      reason: '5 tool batches in a row failed',
      code: 'limit_reached',
    });
    // The time budget counts from the run's start, human waits left out.
    expect(capped({ startedAt: 10_000 }, 14_999)).toBeNull();
    expect(capped({ startedAt: 10_000 }, 15_000)).toEqual({
      reason: 'time budget (5000 ms) used up',
      code: 'limit_reached',
    });
    expect(capped({ startedAt: 10_000, humanWaitMs: 1_000 }, 15_000)).toBeNull();
  });
});
