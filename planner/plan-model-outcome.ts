/**
 * What to do with a model call's outcome: retry an unusable response, nudge a degenerate one,
 * back off a rate limit, admit its tool calls (checked by the toolbox, numbered `<turn>.<n>`), or
 * finish with the text. Workflow-safe, deterministic.
 */
import type { ModelOutcome } from '../shared/model/model-response.js';
import { backoffDelay } from './backoff.js';
import { callModel, finalize, finish } from './plan-common.js';
import type { Plan, PlannerState } from './plan.js';
import { planToolCalls } from './plan-tool-calls.js';
import { isDegenerate, validateResponse, visibleText } from './response-validator.js';
import type { Toolbox } from './toolbox.js';

const NUDGE = 'Your last reply had no visible answer and no tool call. Reply with your answer or call a tool.';

export function planModelOutcome(state: PlannerState, outcome: ModelOutcome, toolbox: Toolbox, now: number): Plan {
  const plan = decide(state, outcome, toolbox, now);
  // The run's last word is the model's: the transcript ends with the answer it gave.
  if (outcome.status === 'ok' && plan.step.type === 'finish' && !plan.reply) return { ...plan, reply: { text: plan.step.answer, toolCalls: [] } };
  return plan;
}

function decide(state: PlannerState, outcome: ModelOutcome, toolbox: Toolbox, now: number): Plan {
  const { policy } = state;
  if (outcome.status === 'error') {
    if (outcome.error.code === 'rate_limited' && state.modelRetries < policy.maxModelRetries) {
      const retried = { ...state, modelRetries: state.modelRetries + 1, phase: 'backing_off' as const };
      // Stryker disable next-line StringLiteral: any fixed key gives a jitter that replays the same
      const delayMs = backoffDelay(policy.backoff, retried.modelRetries, 'model', outcome.retryAfterMs);
      const again = callModel(retried, state.lastToolChoice);
      return { ...again, state: retried, step: { type: 'back_off', delayMs, reason: 'model rate-limited', next: again.step } };
    }
    // A reply the boundary refused (a model client broke the ModelOutcome shape) is an unusable
    // response: asked again, within the same retries, then a forced final turn.
    if (outcome.error.code === 'malformed_model_output') {
      if (state.modelRetries < policy.maxModelRetries) return callModel({ ...state, modelRetries: state.modelRetries + 1 }, state.lastToolChoice);
      const why = `the model's reply was malformed (malformed_model_output: ${outcome.error.message.slice(0, 200)})`;
      return state.finalizing ? finish(state, `The run ended without a final answer: ${why}.`) : finalize(state, why);
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
    const why = verdict.valid ? 'the model gave no visible answer' : `the model response was unusable (${verdict.reason})`;
    if (state.finalizing) return finish(state, `The run ended without a final answer: ${why}.`);
    return finalize(state, why);
  }

  const turned: PlannerState = { ...state, turn: state.turn + 1, modelRetries: 0, nudges: 0 };
  const text = visibleText(response!.text);
  if (response!.toolCalls.length === 0 || state.finalizing) {
    // Without calls the visible text is never empty (validateResponse, isDegenerate): only a final turn's calls can come without it.
    return finish(turned, text || `The run ended (${state.finalizing}).`);
  }
  // Caps are checked when the batch is admitted and after it completes, so every tool call the
  // model made is answered in the transcript (providers reject unanswered calls).
  const checked = response!.toolCalls.map((raw, i) => toolbox.check(raw, `${turned.turn}.${i + 1}`));
  const admitted = planToolCalls(turned, checked, now);
  return { ...admitted, reply: { text: response!.text, toolCalls: checked.map((c) => c.call) } };
}
