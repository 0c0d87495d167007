/**
 * Steps every planner function shares: calling the model, forcing a final turn, finishing,
 * leaving a human wait, refusing a call, and the per-turn budget. Workflow-safe, deterministic.
 */
import type { ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import type { ToolChoice } from '../shared/model/model-response.js';
import type { SideEffects } from '../shared/tools/define-tool.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { toolError } from '../shared/failures/tool-error.js';
import { errorResult, type ToolResult } from '../shared/tools/tool-result.js';
import type { RunEndCode } from '../shared/agent/run-outcome.js';
import type { Plan, PlannerState, RunEnd } from './plan.js';
import { budgetNear } from './plan-budget.js';

/** Tools the model may see this turn: all but the disabled ones. */
export function enabledTools(state: PlannerState): string[] {
  return state.tools.filter((name) => {
    const off = state.disabled[name];
    return !off || (off.untilTurn !== null && state.turn >= off.untilTurn);
  });
}

export function callModel(
  state: PlannerState,
  toolChoice: ToolChoice,
  notes: readonly string[] = [],
  record: Plan['record'] = [],
): Plan {
  const tools = state.finalizing ? [] : enabledTools(state);
  const forcedGone = typeof toolChoice === 'object' && !tools.includes(toolChoice.tool);
  const choice: ToolChoice = state.finalizing || tools.length === 0 ? 'none' : forcedGone ? 'auto' : toolChoice;
  return {
    state: { ...state, phase: state.finalizing ? 'finalizing' : 'model', lastToolChoice: choice },
    step: { type: 'call_model', toolChoice: choice, tools },
    record,
    notes,
  };
}

/** A forced final turn: no tools, and the model is told why it must answer now. `code` is how the run's outcome names it. */
export function finalize(
  state: PlannerState,
  reason: string,
  notes: readonly string[] = [],
  record: Plan['record'] = [],
  code: RunEndCode = 'limit_reached',
): Plan {
  if (state.finalizing) return callModel(state, 'none', notes, record);
  const next = { ...state, finalizing: reason, finalizingCode: code, clarification: null, reviews: [] };
  return callModel(
    next,
    'none',
    [...notes, `Stop calling tools (${reason}). Give your final answer now from what you have.`],
    record,
  );
}

export function finish(
  state: PlannerState,
  answer: string,
  notes: readonly string[] = [],
  reason?: string,
  end?: RunEnd,
): Plan {
  return {
    state: { ...state, phase: 'done' },
    step: { type: 'finish', answer, reason: reason ?? state.finalizing, ...(end && { end }) },
    record: [],
    notes,
  };
}

/** Closes a human wait, adding its length to the time that does not count against the budget. */
export function endWait(state: PlannerState, now: number): PlannerState {
  if (state.waitingSince === null) return state;
  return { ...state, humanWaitMs: state.humanWaitMs + Math.max(0, now - state.waitingSince), waitingSince: null };
}

/** The reason a cap ends the run now, if one does, and the code the run's outcome gives it. */
export function capReached(
  state: PlannerState,
  now: number,
): { readonly reason: string; readonly code: RunEndCode } | null {
  const { policy } = state;
  if (state.turn >= policy.maxTurns) return { reason: `max turns (${policy.maxTurns}) reached`, code: 'limit_reached' };
  if (state.failedBatchStreak >= policy.maxConsecutiveFailedBatches)
    return { reason: `${state.failedBatchStreak} tool batches in a row failed`, code: 'limit_reached' };
  if (policy.timeBudgetMs !== null && now - state.startedAt - state.humanWaitMs >= policy.timeBudgetMs)
    return { reason: `time budget (${policy.timeBudgetMs} ms) used up`, code: 'limit_reached' };
  const near = budgetNear(state);
  if (near) return { reason: near, code: 'budget_exhausted' };
  return null;
}

/** A result decided by the planner: no activity ran. The taxonomy gives the code its reason. */
export function refusal(
  call: ToolCall,
  code: ToolErrorCode,
  message: string,
  availableTools?: readonly string[],
): ToolResult {
  return errorResult(call, toolError(code, message), { message, ...(availableTools ? { availableTools } : {}) });
}

/** Runs of one call key allowed per model turn, back-off re-runs included. */
export function budgetFor(state: PlannerState, sideEffects: SideEffects): number {
  return sideEffects === 'once' ? state.policy.retryBudgetOnce : state.policy.retryBudgetPerTurn;
}
