/** The first plan of a run: the state the first model turn reads, and the step asking the model. */
import { describe, expect, it } from 'vitest';
import { initialState, planStart } from './plan-start.js';
import { resolvePolicy } from './policy.js';
import { TOOLS } from './testing.js';

const policy = () => resolvePolicy({ maxTurns: 7 });

describe('planStart', () => {
  it('asks the model first, with every tool of the agent and a free choice among them', () => {
    const plan = planStart({ policy: policy(), tools: TOOLS, now: 1_234 });
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: TOOLS });
    expect(plan.record).toEqual([]);
    expect(plan.notes).toEqual([]);
    expect(plan.reply).toBeUndefined();
  });

  it('starts a fresh run: model phase, nothing used, nothing pending, the clock started now', () => {
    expect(planStart({ policy: policy(), tools: TOOLS, now: 1_234, runKey: 'wf-1' }).state).toEqual({
      policy: policy(),
      tools: TOOLS,
      phase: 'model',
      turn: 0,
      toolCallsUsed: 0,
      failedBatchStreak: 0,
      modelRetries: 0,
      nudges: 0,
      startedAt: 1_234,
      humanWaitMs: 0,
      waitingSince: null,
      attempts: {},
      failureStreaks: {},
      blocked: {},
      repairStreaks: {},
      disabled: {},
      batch: null,
      clarification: null,
      reviews: [],
      waitingRuns: [],
      lastToolChoice: 'auto',
      finalizing: null,
      lastErrors: [],
      questions: 0,
      runKey: 'wf-1',
    });
  });

  it("keeps no run key when the run has none, and the initial state is the start plan's", () => {
    const state = initialState({ policy: policy(), tools: TOOLS, now: 0 });
    expect(state).not.toHaveProperty('runKey');
    expect(planStart({ policy: policy(), tools: TOOLS, now: 0 }).state).toEqual(state);
  });

  it('an agent without tools is asked for an answer, not a tool call', () => {
    const plan = planStart({ policy: policy(), tools: [], now: 0 });
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(plan.state.lastToolChoice).toBe('none');
  });
});
