import { describe, expect, it } from 'vitest';
import type { Happening } from './advance.js';
import type { LoopSignals } from './loop-control.js';
import type { Plan, PlannerState } from './plan.js';
import {
  runLoop,
  runLoopInMemory,
  STOP_LOOP,
  type AsyncLoopMoves,
  type LoopDriver,
  type LoopMoves,
  type LoopRequest,
} from './run-loop.js';
import { PLAIN_TOOLS, start, textReply } from './testing.js';

const ANSWER: Happening = { type: 'model_outcome', outcome: textReply('done') };
const QUIET: LoopSignals = { cancelReason: null, paused: false, continueAsNewSuggested: false, turnsThisRun: 0 };

/** A driver that logs what the loop asks of it; `signals` may change as the run goes. */
function scripted(
  options: { signals?: (state: PlannerState) => Partial<LoopSignals>; messages?: string[]; now?: () => number } = {},
) {
  const recorded: Plan[] = [];
  const decided: Plan[] = [];
  const queued = [...(options.messages ?? [])];
  let delivered = 0;
  const driver: LoopDriver = {
    record: (plan) => void recorded.push(plan),
    deciding: (plan) => void decided.push(plan),
    signals: (state) => ({ ...QUIET, ...options.signals?.(state) }),
    context: () => ({ now: options.now?.() ?? 0, toolbox: PLAIN_TOOLS }),
    ...(options.messages && {
      messages: {
        queued: () => queued.map((text, i) => ({ id: `m${i + 1}`, text })),
        delivered: () => {
          delivered++;
          queued.length = 0;
        },
      },
    }),
  };
  return { driver, recorded, decided, delivered: () => delivered };
}

/** Moves that answer each request from a script, logging the requests. */
function answering(script: { take?: (Happening | undefined)[]; hold?: number[]; handOver?: (Plan | undefined)[] }) {
  const asked: LoopRequest[] = [];
  const take = [...(script.take ?? [])];
  const hold = [...(script.hold ?? [])];
  const handOver = [...(script.handOver ?? [])];
  const moves: LoopMoves = {
    take_step: (r) => (asked.push(r), take.length > 0 ? take.shift() : STOP_LOOP),
    hold: (r) => (asked.push(r), hold.shift() ?? STOP_LOOP),
    hand_over: (r) => (asked.push(r), handOver.length > 0 ? handOver.shift() : STOP_LOOP),
  };
  return { moves, asked };
}

describe('runLoop', () => {
  it('takes each step with the driver, records each plan once, and returns the finish', async () => {
    const { driver, recorded, decided } = scripted();
    const taken: string[] = [];
    const moves: AsyncLoopMoves = {
      take_step: async ({ step }) => (taken.push(step.type), ANSWER),
      hold: () => Promise.reject(new Error('not paused')),
      hand_over: () => Promise.reject(new Error('not due')),
    };
    const finish = await runLoop(start(), driver, moves);
    expect(taken).toEqual(['call_model']);
    expect(finish.step).toMatchObject({ type: 'finish', answer: 'done', reason: null });
    expect(finish.state.turn).toBe(1);
    expect(recorded.map((p) => p.step.type)).toEqual(['call_model', 'finish']);
    expect(decided).toEqual(recorded);
  });

  it('takes a step woken early again, without recording its plan again', async () => {
    const { driver, recorded, decided } = scripted();
    const answers = [undefined, undefined, ANSWER];
    const moves: AsyncLoopMoves = {
      take_step: async () => answers.shift(),
      hold: () => Promise.reject(new Error('not paused')),
      hand_over: () => Promise.reject(new Error('not due')),
    };
    await runLoop(start(), driver, moves);
    expect(answers).toEqual([]);
    expect(recorded.map((p) => p.step.type)).toEqual(['call_model', 'finish']);
    expect(decided.map((p) => p.step.type)).toEqual(['call_model', 'call_model', 'call_model', 'finish']);
  });
});

describe('runLoopInMemory', () => {
  it('goes on from the plan the driver records (the harness passes it through JSON)', () => {
    const copies: Plan[] = [];
    const { driver } = scripted();
    const { moves, asked } = answering({ take: [ANSWER] });
    const finish = runLoopInMemory(
      start(),
      { ...driver, record: (plan) => (copies.push({ ...plan, state: { ...plan.state } }), copies.at(-1)) },
      moves,
    );
    expect(asked[0]!.step).toBe(copies[0]!.step);
    expect(asked[0]!.state).toBe(copies[0]!.state);
    expect(finish?.state).toBe(copies[1]!.state);
  });

  it('stops where a move says so', () => {
    const { driver, recorded } = scripted();
    const { moves, asked } = answering({});
    expect(runLoopInMemory(start(), driver, moves)).toBeUndefined();
    expect(asked.map((r) => r.type)).toEqual(['take_step']);
    expect(recorded).toHaveLength(1);
  });

  it('delivers queued messages before a model call, recorded as their own plan', () => {
    const { driver, recorded, delivered } = scripted({ messages: ['also check order 7'] });
    const { moves, asked } = answering({ take: [ANSWER] });
    runLoopInMemory(start(), driver, moves);
    expect(delivered()).toBe(1);
    expect(recorded.map((p) => p.said)).toEqual([undefined, ['also check order 7'], undefined]);
    expect(asked[0]!.step.type).toBe('call_model');
  });

  it('acts on a cancel with its reason, without taking the step', () => {
    const { driver, recorded } = scripted({ signals: () => ({ cancelReason: 'stop now' }) });
    const { moves, asked } = answering({ take: [ANSWER] });
    const finish = runLoopInMemory(start(), driver, moves);
    expect(recorded[1]!.state.finalizing).toContain('stop now');
    expect(asked.map((r) => r.type)).toEqual(['take_step']);
    expect(asked[0]!.step).toMatchObject({ type: 'call_model', toolChoice: 'none' });
    expect(finish?.step.type).toBe('finish');
  });

  it('holds while paused, asking the driver whether it still is, then takes the step with the time held counted', () => {
    let paused = true;
    const { driver } = scripted({ signals: () => ({ paused }) });
    const { moves, asked } = answering({ hold: [5_000], take: [ANSWER] });
    const held = moves.hold;
    const finish = runLoopInMemory(start(), driver, {
      ...moves,
      hold: (r) => {
        expect(r.held()).toBe(true);
        paused = false;
        expect(r.held()).toBe(false);
        return held(r);
      },
    });
    expect(asked.map((r) => r.type)).toEqual(['hold', 'take_step']);
    expect(asked[1]!.state.humanWaitMs).toBe(5_000);
    expect(finish?.state.humanWaitMs).toBe(5_000);
  });

  it('hands over when due, goes on from the next run’s first plan, and decides again when no longer due', () => {
    let suggested = true;
    const { driver, recorded } = scripted({ signals: () => ({ continueAsNewSuggested: suggested }) });
    const first = start();
    const carried: Plan = { state: { ...first.state, turn: 3 }, step: first.step, record: [], notes: [] };
    const { moves, asked } = answering({ handOver: [carried, undefined], take: [ANSWER] });
    const handOver = moves.hand_over;
    const finish = runLoopInMemory(first, driver, {
      ...moves,
      hand_over: (r) => {
        expect(r.due()).toBe(true);
        if (r.state.turn === 3) {
          suggested = false;
          expect(r.due()).toBe(false);
        }
        return handOver(r);
      },
    });
    expect(asked.map((r) => r.type)).toEqual(['hand_over', 'hand_over', 'take_step']);
    // The next run's first plan is recorded once: not again after the hand-over that did not happen.
    expect(recorded.map((p) => p.state.turn)).toEqual([0, 3, 4]);
    expect(finish?.state.turn).toBe(4);
  });

  it('tells the step whether a hand-over is due, so long waits wake for it', () => {
    let events = 0;
    const { driver } = scripted({ signals: () => ({ historyEvents: events }) });
    const { moves, asked } = answering({ take: [ANSWER] });
    runLoopInMemory(start(), driver, moves);
    const request = asked[0] as Extract<LoopRequest, { type: 'take_step' }>;
    expect(request.handOverDue()).toBe(false);
    events = request.state.policy.history.maxEvents;
    expect(request.handOverDue()).toBe(true);
  });
});
