/**
 * What people call each step of a run: the step log (`StepLogEntry.action`), the live stream's
 * `decision` events, the UI's details, the CLI's demo and the traces' `cairn.planner.action`.
 * One closed list, so a name is never restated as a loose string. Workflow-safe, deterministic.
 */
import type { ToolChoice } from '../shared/model/model-response.js';

export const STEP_ACTIONS = [
  /** A model turn with the run's tools. */
  'model',
  /** A model turn restricted to one tool, to repair its call. */
  'repair',
  /** The forced final model turn, with no tools: a cap, a loop or a person ends the run. */
  'final',
  'run_tools',
  /** Asking `once` tools whether calls of unknown outcome took effect. */
  'reconcile',
  'back_off',
  'clarify',
  'review',
  /** Waiting for a person to extend the budget or stop the run. */
  'budget',
  'finish',
  /** Messages people sent while the run worked reach the model. */
  'message',
] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** A model turn's action: the forced final turn, a repair restricted to one tool, or a plain turn. */
export function modelTurnAction(
  final: boolean,
  toolChoice: ToolChoice | undefined,
): Extract<StepAction, 'model' | 'repair' | 'final'> {
  if (final) return 'final';
  return typeof toolChoice === 'object' ? 'repair' : 'model';
}
