/**
 * A run's loop, written once: record the plan, deliver what people said, ask `loopControl`, then
 * finish, act on a cancel, hold through a pause, hand over to a new run, or take the step and
 * `advance`. What only a driver can do (take a step, wait out a pause, continue as new) it asks
 * for, and it returns the finish. The agentRun workflow drives it with Temporal (`runLoop`), the
 * planner's harness in memory (`runLoopInMemory`, testing.ts): the planner's tests run the loop
 * that runs. Workflow-safe, deterministic; no Temporal.
 */
import { assertNever } from '../shared/assert-never.js';
import { advance, type AdvanceContext, type Happening } from './advance.js';
import { handOverDue, loopControl, upgradeDue, type LoopSignals } from './loop-control.js';
import { deliverMessages, type UserMessage } from './plan-messages.js';
import type { Plan, PlanStep, PlannerState } from './plan.js';

export type FinishStep = Extract<PlanStep, { type: 'finish' }>;

/** How the loop ended: the state and the finish step (its answer, or why the run ended without one). */
export interface LoopFinish {
  readonly state: PlannerState;
  readonly step: FinishStep;
}

/** What the loop asks of its driver in passing, synchronously. */
export interface LoopDriver {
  /**
   * Records a plan, once: the transcript, the step log, the UI. Returns the plan to go on from
   * (the harness may pass its state through JSON), or nothing for the plan itself.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: the workflow's driver records and returns nothing
  record(plan: Plan): Plan | void;
  /** Messages people sent that wait for the model, and word once they are delivered (none when absent). */
  readonly messages?: { queued(): readonly UserMessage[]; delivered(): void };
  /** Once the plan is recorded, before each decision (the workflow shows the run's details). */
  deciding?(plan: Plan): void;
  /** What the driver knows for the loop's control: a cancel, a pause, the history's size. */
  signals(state: PlannerState): LoopSignals;
  /** The time and the toolbox for the planner's next plan, read once a step is over. */
  context(): AdvanceContext;
}

/** What only the driver can do. Each answer's type is in `LoopAnswers`. */
export type LoopRequest =
  /** Wait while `held()`: answer how long the run was held. */
  | { readonly type: 'hold'; readonly state: PlannerState; readonly step: PlanStep; readonly held: () => boolean }
  /**
   * Continue as new from `state` and `step` if, once handlers have finished, `due()` still holds:
   * answer the next run's first plan (a driver that goes on itself), or nothing when it is not due any more.
   */
  | { readonly type: 'hand_over'; readonly state: PlannerState; readonly step: PlanStep; readonly due: () => boolean }
  /** Take the step: answer what happened, or nothing when woken early (the loop decides again). */
  | {
      readonly type: 'take_step';
      readonly state: PlannerState;
      readonly step: PlanStep;
      readonly handOverDue: () => boolean;
    };

export interface LoopAnswers {
  readonly hold: number;
  readonly hand_over: Plan | undefined;
  readonly take_step: Happening | undefined;
}

type RequestOf<K extends LoopRequest['type']> = Extract<LoopRequest, { type: K }>;

/** The driver's moves, one per request: a table, so a new request fails `tsc` in every driver. */
export type LoopMoves = {
  readonly [K in LoopRequest['type']]: (request: RequestOf<K>) => LoopAnswers[K] | typeof STOP_LOOP;
};
export type AsyncLoopMoves = {
  readonly [K in LoopRequest['type']]: (request: RequestOf<K>) => Promise<LoopAnswers[K]>;
};

/** What an in-memory move answers to end the loop there (a person who never answers). */
export const STOP_LOOP = Symbol('stop the loop');

type Answer = LoopAnswers[keyof LoopAnswers];

/** Runs the loop with a driver that acts with Temporal: steps are activities, timers and waits. */
export async function runLoop(first: Plan, driver: LoopDriver, moves: AsyncLoopMoves): Promise<LoopFinish> {
  const loop = steps(first, driver);
  for (let next = loop.next(); ; ) {
    if (next.done) return next.value;
    const request = next.value;
    next = loop.next(await (moves[request.type] as (r: LoopRequest) => Promise<Answer>)(request));
  }
}

/** Runs the loop in memory, synchronously; undefined when a move stopped it. */
export function runLoopInMemory(first: Plan, driver: LoopDriver, moves: LoopMoves): LoopFinish | undefined {
  const loop = steps(first, driver);
  for (let next = loop.next(); ; ) {
    if (next.done) return next.value;
    const request = next.value;
    const answer = (moves[request.type] as (r: LoopRequest) => Answer | typeof STOP_LOOP)(request);
    if (answer === STOP_LOOP) return undefined;
    next = loop.next(answer);
  }
}

/** Asks the driver for `request` and hands back its answer, typed by the request. */
function* ask<K extends LoopRequest['type']>(request: RequestOf<K>): Generator<LoopRequest, LoopAnswers[K], Answer> {
  return (yield request) as LoopAnswers[K];
}

function* steps(first: Plan, driver: LoopDriver): Generator<LoopRequest, LoopFinish, Answer> {
  let plan = first;
  let recorded: Plan | undefined;
  const record = (p: Plan) => (recorded = driver.record(p) ?? p);
  for (;;) {
    // Woken early, the step is taken again: its plan is recorded once.
    if (plan !== recorded) plan = record(plan);
    const delivered = driver.messages ? deliverMessages(plan.state, plan.step, driver.messages.queued()) : null;
    if (delivered) {
      driver.messages!.delivered();
      plan = record(delivered);
    }
    driver.deciding?.(plan);
    const { state, step } = plan;
    const signals = () => driver.signals(state);
    const known = signals();
    const control = loopControl(state, step, known);
    switch (control) {
      case 'finish':
        return { state, step: step as FinishStep };
      case 'cancel':
        plan = advance(state, step, { type: 'cancelled', reason: known.cancelReason! }, driver.context());
        continue;
      case 'hold': {
        const pausedMs = yield* ask({
          type: 'hold',
          state,
          step,
          held: () => loopControl(state, step, signals()) === 'hold',
        });
        plan = advance(state, step, { type: 'resumed', pausedMs }, driver.context());
        continue;
      }
      case 'hand_over': {
        // A cancel or a pause that arrived meanwhile is acted on here, in this run.
        const next = yield* ask({
          type: 'hand_over',
          state,
          step,
          due: () => loopControl(state, step, signals()) === 'hand_over',
        });
        if (next) plan = next;
        continue;
      }
      case 'take_step':
        break;
      // Stryker disable next-line all: unreachable, tsc proves every variant handled
      default:
        return assertNever(control, 'loop control');
    }
    // A wait for a person also wakes for an upgrade: it is a safe point (loop-control.ts).
    const due = () => {
      const now = signals();
      return handOverDue(state, now) || upgradeDue(step, now);
    };
    const happened = yield* ask({ type: 'take_step', state, step, handOverDue: due });
    if (happened) plan = advance(state, step, happened, driver.context());
  }
}
