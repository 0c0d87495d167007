/**
 * The loop's unions are closed, and the compiler holds every switch and table over them to all
 * their variants: `tsc -p .` checks the `@ts-expect-error` lines below (an unused one fails it).
 * Adding a step, a happening, a planner action or a loop request means handling it everywhere
 * these are dispatched: takeStep, describeStep, advance, completeBatch, the loop's moves.
 */
import { describe, expect, it } from 'vitest';
import { assertNever } from '../shared/assert-never.js';
import type { Happening } from './advance.js';
import type { PlannerAction } from './hint-actions.js';
import type { LoopControl } from './loop-control.js';
import type { PlanStep } from './plan.js';
import { STOP_LOOP, type LoopMoves } from './run-loop.js';

/** Every step type but one: what a switch that forgot `finish` handles. */
function forgetsFinish(step: PlanStep): string {
  switch (step.type) {
    case 'call_model':
    case 'execute_tools':
    case 'reconcile':
    case 'back_off':
    case 'await_clarification':
    case 'await_review':
    case 'await_budget':
      return step.type;
    default:
      // @ts-expect-error -- 'finish' is left unhandled: `step` is not `never` here
      return assertNever(step, 'step');
  }
}

describe('the loop is exhaustive', () => {
  it('refuses a switch over steps that leaves one out, and throws if one slips through', () => {
    expect(
      forgetsFinish({ type: 'back_off', delayMs: 1, reason: 'r', next: { type: 'finish', answer: '', reason: null } }),
    ).toBe('back_off');
    expect(() => forgetsFinish({ type: 'finish', answer: '', reason: null })).toThrow('unhandled step: "finish"');
  });

  it('refuses tables keyed by a union that lack a key', () => {
    // @ts-expect-error -- no entry for 'finish'
    const handsOver: Record<PlanStep['type'], boolean> = {
      call_model: true,
      execute_tools: false,
      reconcile: false,
      back_off: false,
      await_clarification: true,
      await_review: true,
      await_budget: true,
    };
    // @ts-expect-error -- no entry for 'ask_human'
    const actions: Record<PlannerAction, number> = {
      repair: 1,
      back_off: 2,
      disable_tool: 3,
      block_call: 4,
      continue: 5,
      inform: 6,
    };
    // @ts-expect-error -- no entry for 'take_step'
    const controls: Record<LoopControl, number> = { finish: 1, cancel: 2, hold: 3, hand_over: 4 };
    // @ts-expect-error -- a driver without a hand-over
    const moves: LoopMoves = { take_step: () => STOP_LOOP, hold: () => STOP_LOOP };
    expect([handsOver, actions, controls, moves].every((table) => typeof table === 'object')).toBe(true);
  });

  it('refuses a switch over happenings that leaves one out', () => {
    const kind = (happening: Happening): string => {
      if (happening.type === 'cancelled' || happening.type === 'resumed') return happening.type;
      // @ts-expect-error -- the step's own happenings are left unhandled
      return assertNever(happening);
    };
    expect(kind({ type: 'resumed', pausedMs: 1 })).toBe('resumed');
  });
});
