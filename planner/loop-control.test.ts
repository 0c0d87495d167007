/**
 * Before each step: finish, cancel, hold, hand over, or take the step — and the harness driving
 * those decisions through a whole run (signals, pauses, continue-as-new).
 */
import { describe, expect, it } from 'vitest';
import { loopControl, upgradeDue, type LoopSignals } from './loop-control.js';
import type { PlanStep } from './plan.js';
import { drive, failed, ok, rawCall, start, textReply, toolCallsReply, type World } from './testing.js';

const quiet: LoopSignals = { cancelReason: null, paused: false, continueAsNewSuggested: false, turnsThisRun: 0 };
const model: PlanStep = { type: 'call_model', toolChoice: 'auto', tools: [] };
const tools: PlanStep = { type: 'execute_tools', calls: [] };
const backOff: PlanStep = { type: 'back_off', delayMs: 10, reason: 'x', next: tools };
const question: PlanStep = { type: 'await_clarification', clarification: { id: 'q1', question: '?' } };
const finish: PlanStep = { type: 'finish', answer: 'done', reason: null };
const fresh = () => start().state;

describe('upgradeDue: an auto-upgrade run moves to a newer build only at a safe point', () => {
  const review: PlanStep = { type: 'await_review', reviews: [] } as unknown as PlanStep;
  const budget: PlanStep = { type: 'await_budget' } as unknown as PlanStep;
  const steps = [model, tools, backOff, question, review, budget, finish];
  const upgrade = (at: 'person' | 'turn', userTurn = false): LoopSignals => ({ ...quiet, upgrade: { at, userTurn } });

  it("at `person`: before a wait for a person, or a model turn that takes a person's new message; never with calls in flight", () => {
    expect(steps.map((step) => upgradeDue(step, upgrade('person')))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(upgradeDue(model, upgrade('person', true))).toBe(true);
    expect(upgradeDue(tools, upgrade('person', true))).toBe(false);
  });

  it('at `turn`: also before any model turn', () => {
    expect(steps.map((step) => upgradeDue(step, upgrade('turn')))).toEqual([
      true,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('never without a newer build, and loopControl hands over only where it is due', () => {
    expect(steps.some((step) => upgradeDue(step, quiet))).toBe(false);
    const state = fresh();
    expect([model, tools, question, review].map((step) => loopControl(state, step, upgrade('person')))).toEqual([
      'take_step',
      'take_step',
      'hand_over',
      'hand_over',
    ]);
    // A paused run does not move (it holds); a cancel still wins.
    expect(loopControl(state, question, { ...upgrade('person'), paused: true })).toBe('hold');
    expect(loopControl(state, question, { ...upgrade('person'), cancelReason: 'stop' })).toBe('cancel');
  });
});

describe('loopControl', () => {
  it('finishes a finished run whatever arrives', () => {
    const state = fresh();
    expect(
      loopControl(state, finish, { ...quiet, cancelReason: 'x', paused: true, continueAsNewSuggested: true }),
    ).toBe('finish');
  });

  it('acts on a cancel before a pause, and not at all once the run is finalizing', () => {
    const state = fresh();
    expect(loopControl(state, question, { ...quiet, cancelReason: 'stop', paused: true })).toBe('cancel');
    const finalizing = { ...state, finalizing: 'stop' };
    expect(loopControl(finalizing, model, { ...quiet, cancelReason: 'stop', paused: true })).toBe('take_step');
    expect(loopControl(state, model, { ...quiet, paused: true })).toBe('hold');
  });

  it('hands over when Temporal suggests it or after continueAsNewAfterTurns, only between whole steps', () => {
    const state = fresh();
    const suggested = { ...quiet, continueAsNewSuggested: true };
    expect([model, question, tools, backOff].map((step) => loopControl(state, step, suggested))).toEqual([
      'hand_over',
      'hand_over',
      'take_step',
      'take_step',
    ]);
    expect(loopControl(state, model, { ...quiet, turnsThisRun: 2, continueAsNewAfterTurns: 3 })).toBe('take_step');
    expect(loopControl(state, model, { ...quiet, turnsThisRun: 3, continueAsNewAfterTurns: 3 })).toBe('hand_over');
    expect(loopControl(state, model, { ...quiet, turnsThisRun: 30, continueAsNewAfterTurns: 0 })).toBe('take_step');
  });

  it('hands over when the history reaches the policy budget, whatever the turn count', () => {
    const state = fresh();
    const { maxBytes, maxEvents } = state.policy.history;
    expect(loopControl(state, question, { ...quiet, historyBytes: maxBytes - 1, historyEvents: maxEvents - 1 })).toBe(
      'take_step',
    );
    expect(loopControl(state, question, { ...quiet, historyBytes: maxBytes })).toBe('hand_over');
    expect(loopControl(state, question, { ...quiet, historyEvents: maxEvents })).toBe('hand_over');
  });

  it('a paused run hands over only when its history is full, and only between whole steps', () => {
    const state = fresh();
    const paused = { ...quiet, paused: true, turnsThisRun: 5, continueAsNewAfterTurns: 1 };
    expect(loopControl(state, question, paused)).toBe('hold');
    const full = { ...paused, historyBytes: state.policy.history.maxBytes };
    expect(loopControl(state, question, full)).toBe('hand_over');
    expect(loopControl(state, tools, full)).toBe('hold');
  });
});

describe('a whole run driven through loopControl and advance', () => {
  const asking: World = {
    policy: { clarificationTimeoutMs: 600_000 },
    model: [
      toolCallsReply([rawCall('lookup')]),
      toolCallsReply([rawCall('lookup', { order_id: 'A-1' })]),
      textReply('Found it.'),
    ],
    tool: (c) =>
      (c.args as { order_id?: string }).order_id
        ? ok(c)
        : failed(c, 'missing_fields', { clarifyingQuestion: 'Which order?' }),
    answer: () => 'A-1',
  };

  it('a pause during a question is human time and stops the question clock', () => {
    const plain = drive(asking);
    const paused = drive({ ...asking, signals: [{ atPlan: 2, pauseMs: 30_000 }] });
    const asked = (t: typeof plain) => t.plans.find((p) => p.step.type === 'await_clarification')!;
    const resumed = paused.plans[paused.plans.indexOf(asked(paused)) + 1]!;
    expect(resumed.step).toBe(asked(paused).step);
    expect(resumed.state.humanWaitMs - asked(paused).state.humanWaitMs).toBe(30_000);
    expect(resumed.state.waitingSince).toBe(asked(paused).state.waitingSince! + 30_000);
    expect(paused.last.step).toEqual(plain.last.step);
  });

  it('a cancel while a question waits ends it with a forced final turn', () => {
    const trace = drive({
      ...asking,
      model: [...asking.model.slice(0, 1), textReply('Stopped.')],
      signals: [{ atPlan: 2, cancel: 'the customer left' }],
    });
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Stopped.', reason: 'the customer left' });
    expect(trace.transcript.at(-2)).toEqual({
      role: 'user',
      content: '[cairn] Stop calling tools (the customer left). Give your final answer now from what you have.',
    });
  });

  it('handing over every turn (continue-as-new through JSON) changes nothing the model or tools see', () => {
    const plain = drive(asking);
    const chained = drive({ ...asking, continueAsNewAfterTurns: 1 });
    expect(chained.handOvers).toBeGreaterThanOrEqual(2);
    expect(chained.transcript).toEqual(plain.transcript);
    expect(chained.executed).toEqual(plain.executed);
    expect(chained.last.step).toEqual(plain.last.step);
  });
});
