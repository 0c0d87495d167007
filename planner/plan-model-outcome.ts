/**
 * What to do with a model call's outcome: retry an unusable response, nudge a degenerate one,
 * back off a rate limit, admit its tool calls (checked by the toolbox, numbered `<turn>.<n>`), or
 * finish with the text. Workflow-safe, deterministic.
 */
import { tenantWindowNearText, type ModelFailure, type ModelOutcome } from '../shared/model/model-response.js';
import { addUsage } from '../shared/model/model-usage.js';
import { errorChain, type ToolError } from '../shared/failures/tool-error.js';
import type { RunEndCode } from '../shared/agent/run-outcome.js';
import { callModel, finalize, finish } from './plan-common.js';
import type { Plan, PlannerState } from './plan.js';
import { checkBudget, tenantWindowSpent } from './plan-budget.js';
import { providerWaitDelay, unitFromKey } from './provider-wait.js';
import { planToolCalls } from './plan-tool-calls.js';
import { isDegenerate, validateResponse, visibleText } from './response-validator.js';
import type { Toolbox } from './toolbox.js';

const NUDGE = 'Your last reply had no visible answer and no tool call. Reply with your answer or call a tool.';

/** Which model answered, and a random number in [0, 1) for a wait's jitter (the workflow's seeded Math.random). */
export interface ModelTurnFacts {
  readonly model?: string;
  readonly random?: number;
}

export function planModelOutcome(
  state: PlannerState,
  outcome: ModelOutcome,
  toolbox: Toolbox,
  now: number,
  facts: ModelTurnFacts = {},
): Plan {
  // A reply ends any wait for the provider, and its usage counts (per model) whatever comes next.
  const counted: PlannerState =
    outcome.status === 'ok'
      ? {
          ...state,
          providerWait: null,
          ...(outcome.response && { usage: addUsage(state.usage, facts.model ?? 'model', outcome.response.usage) }),
          // Near the tenant's budget window (the worker says so): a next model turn is the wrap-up turn.
          ...(outcome.tenantWindowNear &&
            !state.tenantNear && { tenantNear: tenantWindowNearText(outcome.tenantWindowNear) }),
        }
      : state;
  const plan = decide(counted, outcome, toolbox, now, facts);
  // The run's last word is the model's: the transcript ends with the answer it gave.
  if (outcome.status === 'ok' && plan.step.type === 'finish' && !plan.reply)
    return { ...plan, reply: { text: plan.step.answer, toolCalls: [] } };
  return outcome.status === 'ok' && outcome.response ? checkBudget(plan, now) : plan;
}

/** What kind of model failure an error outcome is; outcomes of model clients that do not say are read by their code. */
function failureOf(outcome: Extract<ModelOutcome, { status: 'error' }>): ModelFailure | 'other' {
  if (outcome.failure) return outcome.failure;
  if (outcome.error.code === 'rate_limited') return 'rate_limited';
  if (outcome.error.code === 'timeout') return 'unavailable';
  return 'other';
}

/** The run ends without its answer because of its model: failed, unless the policy asks for a soft end. */
function modelEnd(state: PlannerState, code: RunEndCode, message: string): Plan {
  const answer = `The run ended: ${message}`;
  return finish(state, answer, [], `${code}: ${message.slice(0, 200)}`, {
    code,
    message,
    fail: state.policy.onModelFailure !== 'end',
  });
}

/** Wait for the provider (a durable timer) and ask again, or end `model_unavailable` once patience is spent. */
function waitForProvider(
  state: PlannerState,
  outcome: Extract<ModelOutcome, { status: 'error' }>,
  failure: ModelFailure,
  now: number,
  random: number | undefined,
): Plan {
  const { policy } = state;
  // A cancelled run asks for its final answer once: it does not wait for a provider that refused it.
  if (state.finalizingCode === 'cancelled')
    return finish(
      state,
      `The run ended without a final answer: it was cancelled (${state.finalizing}), and the model could not be reached (${outcome.error.message.slice(0, 200)}).`,
    );
  const since = state.providerWait?.since ?? now;
  const attempts = (state.providerWait?.attempts ?? 0) + 1;
  // Flow control's holds are not refusals: the back-off grows with the provider's refusals only, so a run held
  // for its permit and then refused once waits a second or two, not the jitter of its fifth attempt.
  const refusals =
    (state.providerWait?.refusals ?? state.providerWait?.attempts ?? 0) + (failure === 'throttled' ? 0 : 1);
  const patienceLeft = since + policy.modelPatienceMs - now;
  const timeLeft =
    policy.timeBudgetMs === null
      ? Number.POSITIVE_INFINITY
      : policy.timeBudgetMs - (now - state.startedAt - state.humanWaitMs);
  const left = Math.min(patienceLeft, timeLeft);
  if (left <= 0) {
    const waited = Math.max(0, now - since);
    return modelEnd(
      state,
      'model_unavailable',
      `the model provider did not take the call for ${Math.round(waited / 1000)} s (${attempts - 1} waits; ${outcome.error.message.slice(0, 300)})`,
    );
  }
  const unit = random ?? unitFromKey(state.runKey ?? 'run', state.turn * 1_000 + attempts);
  const delayMs = Math.max(
    1,
    Math.min(
      providerWaitDelay(policy.backoff, Math.max(1, refusals), unit, failure, outcome.retryAfterMs),
      Math.ceil(left),
    ),
  );
  const waiting: PlannerState = { ...state, providerWait: { since, attempts, refusals }, phase: 'backing_off' };
  const again = callModel(waiting, state.lastToolChoice);
  const reason =
    failure === 'throttled'
      ? 'model call held by flow control'
      : failure === 'unavailable'
        ? unavailableText(outcome.error, left)
        : failure === 'overloaded'
          ? 'model provider overloaded'
          : 'model rate-limited';
  return { ...again, state: waiting, step: { type: 'back_off', delayMs, reason, next: again.step } };
}

/**
 * Why the run waits for a provider it cannot reach, where people look (watch, the step log, the
 * run's state): the innermost cause (`connect ECONNREFUSED 127.0.0.1:7399`) and when the run gives up.
 */
function unavailableText(error: ToolError, left: number): string {
  const cause = errorChain(error).at(-1)?.message.replace(/\s+/g, ' ').slice(0, 200);
  const until = Number.isFinite(left) ? `; the run gives up in ${Math.ceil(left / 1000)} s` : '';
  return `model provider unavailable${cause ? ` (${cause})` : ''}${until}`;
}

function decide(
  state: PlannerState,
  outcome: ModelOutcome,
  toolbox: Toolbox,
  now: number,
  facts: ModelTurnFacts,
): Plan {
  const { policy } = state;
  if (outcome.status === 'error') {
    const failure = failureOf(outcome);
    if (failure === 'rate_limited' || failure === 'overloaded' || failure === 'throttled' || failure === 'unavailable')
      return waitForProvider(state, outcome, failure, now, facts.random);
    // The run's tenant has spent a window of its budget (the worker's per-tenant budgets): the call was not sent, the run ends `budget_exhausted`.
    if (failure === 'tenant_budget')
      return tenantWindowSpent(
        state,
        outcome.tenantWindow,
        outcome.error.message,
        callModel(state, state.lastToolChoice).step,
        now,
      );
    if (failure === 'misconfigured')
      return modelEnd(
        state,
        'model_misconfigured',
        `the model cannot be used as configured (${outcome.error.message.slice(0, 400)})`,
      );
    // A reply the boundary refused (a model client broke the ModelOutcome shape) is an unusable
    // response: asked again, within the same retries, then a forced final turn.
    if (outcome.error.code === 'malformed_model_output') {
      if (state.modelRetries < policy.maxModelRetries)
        return callModel({ ...state, modelRetries: state.modelRetries + 1 }, state.lastToolChoice);
      const why = `the model's reply was malformed (malformed_model_output: ${outcome.error.message.slice(0, 200)})`;
      return state.finalizing
        ? finish(state, `The run ended without a final answer: ${why}.`)
        : finalize(state, why, [], [], 'model_unusable');
    }
    // A model client's own error of another kind: the model could not be used this turn, and nothing says waiting helps.
    return modelEnd(
      state,
      'model_unavailable',
      `the model could not be reached (${outcome.error.message.slice(0, 400)})`,
    );
  }

  const response = outcome.response;
  const verdict = validateResponse(response);
  if (!verdict.valid || isDegenerate(response)) {
    const degenerate = verdict.valid;
    if (degenerate && state.nudges < policy.maxNudges)
      return callModel({ ...state, nudges: state.nudges + 1 }, state.lastToolChoice, [NUDGE]);
    if (!degenerate && state.modelRetries < policy.maxModelRetries)
      return callModel({ ...state, modelRetries: state.modelRetries + 1 }, state.lastToolChoice);
    const why = verdict.valid
      ? 'the model gave no visible answer'
      : `the model response was unusable (${verdict.reason})`;
    if (state.finalizing) return finish(state, `The run ended without a final answer: ${why}.`);
    return finalize(state, why, [], [], 'model_unusable');
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
