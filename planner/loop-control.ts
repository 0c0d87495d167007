/**
 * What a run does before it takes its next step: finish, act on a cancel, hold for a pause, hand
 * over to a new run (continue-as-new), or take the step. The driver reports what it knows; this
 * decides. Workflow-safe, deterministic.
 */
import type { UpgradePoint } from '../shared/agent/versioning.js';
import type { PlanStep, PlannerState } from './plan.js';

export interface LoopSignals {
  /** The reason of a requested cancel, or null. */
  readonly cancelReason: string | null;
  readonly paused: boolean;
  /** Temporal suggests continuing as new (`workflowInfo().continueAsNewSuggested`). */
  readonly continueAsNewSuggested: boolean;
  /** Model turns taken by this run of the chain. */
  readonly turnsThisRun: number;
  /** Hand over after this many turns even unsuggested (AgentRunInput.continueAsNewAfterTurns). */
  readonly continueAsNewAfterTurns?: number;
  /** This run's history so far (`workflowInfo().historySize`, `.historyLength`). */
  readonly historyBytes?: number;
  readonly historyEvents?: number;
  /**
   * A newer build of the run's agent is current and the run moves to it (continue-as-new onto that
   * build) at its next safe point: before it waits for a person, or before a model turn that
   * takes a person's new message; with `at: 'turn'`, before any model turn. Never with calls in
   * flight. Absent when the run does not upgrade (docs/upgrades.md).
   */
  readonly upgrade?: RunUpgradeSignal;
}

export interface RunUpgradeSignal {
  /** The agent's choice of safe points (`defineAgent({ upgradeAt })`). */
  readonly at: UpgradePoint;
  /** A person's message waits to be delivered with the next model turn. */
  readonly userTurn: boolean;
}

export type LoopControl = 'finish' | 'cancel' | 'hold' | 'hand_over' | 'take_step';

export function loopControl(state: PlannerState, step: PlanStep, signals: LoopSignals): LoopControl {
  if (step.type === 'finish') return 'finish';
  // A cancel overrides a pause; once the run is finalizing there is nothing left to cancel.
  if (signals.cancelReason !== null && !state.finalizing) return 'cancel';
  const held = signals.paused && signals.cancelReason === null;
  // A paused run hands over only when its history is full (and stays paused in the next run):
  // a flood of Signals during a long pause must not grow one history without bound.
  const due = held ? historyFull(state, signals) : handOverDue(state, signals) || upgradeDue(step, signals);
  if (due && canHandOver(step)) return 'hand_over';
  if (held) return 'hold';
  return 'take_step';
}

/**
 * The run should continue as new: Temporal suggests it, the run took `continueAsNewAfterTurns`
 * turns, or its history reached the policy's budget (well before Temporal's warnings, whatever
 * the turn count). Human waits wake up for it, so a flood of Signals cannot grow one history
 * without bound.
 */
export function handOverDue(state: PlannerState, signals: LoopSignals): boolean {
  const every = signals.continueAsNewAfterTurns;
  return historyFull(state, signals) || (typeof every === 'number' && every > 0 && signals.turnsThisRun >= every);
}

/** The run moves to a newer build before `step` (LoopSignals.upgrade): only at a safe point. */
export function upgradeDue(step: PlanStep, signals: LoopSignals): boolean {
  const upgrade = signals.upgrade;
  if (!upgrade) return false;
  if (step.type === 'call_model') return upgrade.at === 'turn' || upgrade.userTurn;
  return UPGRADES_BEFORE[step.type];
}

/** A wait for a person is a safe point: nothing is in flight, and the person is told on the new build. */
const UPGRADES_BEFORE: Readonly<Record<PlanStep['type'], boolean>> = {
  call_model: false,
  await_clarification: true,
  await_review: true,
  await_budget: true,
  execute_tools: false,
  reconcile: false,
  back_off: false,
  finish: false,
};

function historyFull(state: PlannerState, signals: LoopSignals): boolean {
  const { maxBytes, maxEvents } = state.policy.history;
  return (
    signals.continueAsNewSuggested ||
    (signals.historyBytes ?? 0) >= maxBytes ||
    (signals.historyEvents ?? 0) >= maxEvents
  );
}

/** Only between steps whose state is whole: never with tool calls running, a reconcile or a back-off pending. */
const HANDS_OVER_BEFORE: Readonly<Record<PlanStep['type'], boolean>> = {
  call_model: true,
  await_clarification: true,
  await_review: true,
  await_budget: true,
  execute_tools: false,
  reconcile: false,
  back_off: false,
  finish: false,
};

function canHandOver(step: PlanStep): boolean {
  return HANDS_OVER_BEFORE[step.type];
}
