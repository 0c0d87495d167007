/**
 * What to do with a model call's outcome: retry an unusable response, nudge a degenerate one,
 * back off a rate limit, check tool calls, or finish with the text. Workflow-safe, deterministic.
 */
import type { ModelOutcome } from '../shared/model-response.js';
import { backoffDelay } from './backoff.js';
import { callModel, finalize, finish } from './plan-common.js';
import type { Plan, PlannerState } from './plan.js';
import { isDegenerate, validateResponse, visibleText } from './response-validator.js';

const NUDGE = 'Your last reply had no visible answer and no tool call. Reply with your answer or call a tool.';

export function planModelOutcome(state: PlannerState, outcome: ModelOutcome): Plan {
  const { policy } = state;
  if (outcome.status === 'error') {
    if (outcome.error.code === 'rate_limited' && state.modelRetries < policy.maxModelRetries) {
      const retried = { ...state, modelRetries: state.modelRetries + 1, phase: 'backing_off' as const };
      const delayMs = backoffDelay(policy.backoff, retried.modelRetries, 'model', outcome.retryAfterMs);
      const again = callModel(retried, state.lastToolChoice);
      return { ...again, state: retried, step: { type: 'back_off', delayMs, reason: 'model rate-limited', next: again.step } };
    }
    return finish(state, `The run ended: the model could not be reached (${outcome.error.message}).`, [], `model unreachable: ${outcome.error.code}`);
  }

  const response = outcome.response;
  const verdict = validateResponse(response);
  if (!verdict.valid || isDegenerate(response)) {
    const degenerate = verdict.valid;
    if (degenerate && state.nudges < policy.maxNudges)
      return callModel({ ...state, nudges: state.nudges + 1 }, state.lastToolChoice, [NUDGE]);
    if (!degenerate && state.modelRetries < policy.maxModelRetries)
      return callModel({ ...state, modelRetries: state.modelRetries + 1 }, state.lastToolChoice);
    const why = degenerate ? 'the model gave no visible answer' : `the model response was unusable (${verdict.valid ? '' : verdict.reason})`;
    if (state.finalizing) return finish(state, `The run ended without a final answer: ${why}.`);
    return finalize(state, why);
  }

  const turned: PlannerState = { ...state, turn: state.turn + 1, modelRetries: 0, nudges: 0 };
  const text = visibleText(response!.text);
  if (response!.toolCalls.length === 0 || state.finalizing) {
    return finish(turned, text || `The run ended (${state.finalizing ?? 'no answer'}).`);
  }
  // Caps are checked when the batch is admitted and after it completes, so every tool call the
  // model made is answered in the transcript (providers reject unanswered calls).
  return {
    state: { ...turned, phase: 'tools' },
    step: { type: 'check_tool_calls', calls: response!.toolCalls },
    record: [],
    notes: [],
  };
}
