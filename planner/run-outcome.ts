/**
 * The outcome of a finished run: answered when the model finished on its own; else ended, with the
 * code of what ended it (the finish step's own `end`, or the reason the run was finalizing: a cap,
 * a loop, a cancel, the budget). Workflow-safe, deterministic.
 */
import type { RunOutcome } from '../shared/agent/run-outcome.js';
import type { PlanStep, PlannerState } from './plan.js';

export function runOutcome(state: PlannerState, step: Extract<PlanStep, { type: 'finish' }>): RunOutcome {
  if (step.end) return { status: 'ended', code: step.end.code, message: step.end.message };
  if (step.reason === null) return { status: 'answered' };
  return { status: 'ended', code: state.finalizingCode ?? 'limit_reached', message: step.reason };
}
