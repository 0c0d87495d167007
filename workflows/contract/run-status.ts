/**
 * A run's status as the protocols name it — working, input required, completed, failed,
 * canceled — read off its state: the one rule the servers (A2A, MCP, over a Query) and the
 * workflow itself (its push notifications) apply. A run that ended without doing its job (a spent
 * budget, a cap) is failed, never completed; one cancelled gracefully (a cancel signal: the model
 * gives a final answer with no tools) is canceled from the moment it takes the cancel. Part of the
 * run's contract (workflows/contract/index.ts): pure, workflow-safe.
 */
import { pendingInput, type PendingInput } from './pending-input.js';
import type { RunState } from './run-state.js';

export type RunStatusName = 'working' | 'input_required' | 'completed' | 'failed' | 'canceled';

/** What the state says: the status, with what is asked, the answer or why it failed. */
export interface StatusOfState {
  readonly status: RunStatusName;
  readonly pending?: PendingInput;
  /** The final answer, once the run finished (also for a canceled run: what it said last). */
  readonly answer?: string;
  /** Why the run failed or was canceled. */
  readonly reason?: string;
}

/** True for a reason a cancel gave (`cancelled by a user`, `cancelled over A2A`…). */
export function isCancelReason(reason: string | null | undefined): boolean {
  return typeof reason === 'string' && /^cancel/i.test(reason);
}

export function isTerminal(status: RunStatusName): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}

/** The status of a run whose workflow has not failed (it is open, or it returned). */
export function statusOfState(state: RunState): StatusOfState {
  if (state.failure) return { status: 'failed', reason: state.failure.message };
  // Done, but the answer not yet recorded (the run is finishing): still working for a moment.
  if (state.phase === 'done' && state.answer !== null) {
    const answer = state.answer;
    if (isCancelReason(state.finalizing)) return { status: 'canceled', answer, reason: state.finalizing! };
    const outcome = state.outcome;
    if (outcome?.status === 'ended' && outcome.code !== 'cancelled')
      return { status: 'failed', answer, reason: `${outcome.code}: ${outcome.message}` };
    return { status: 'completed', answer };
  }
  if (isCancelReason(state.finalizing)) return { status: 'canceled', reason: state.finalizing! };
  const pending = pendingInput(state);
  if (pending && !state.paused) return { status: 'input_required', pending };
  return { status: 'working' };
}
