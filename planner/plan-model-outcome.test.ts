/** A model call's outcome: usage counted, provider waits bounded by patience and the time budget, failures ended as what they are. */
import { describe, expect, it } from 'vitest';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { toolError } from '../shared/failures/tool-error.js';
import type { PlannerState } from './plan.js';
import { afterModel, modelError, modelFailure, NO_RESPONSE, start, stepOf, textWithUsage } from './testing.js';

const refused = (message: string, retryAfterMs?: number): Extract<ModelOutcome, { status: 'error' }> => ({
  status: 'error',
  error: toolError('rate_limited', message),
  failure: 'rate_limited',
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});

describe('usage', () => {
  it('a reply from a model the worker did not name is counted under "model"', () => {
    const plan = afterModel(start().state, textWithUsage('Hi.', 10, 2));
    expect(Object.keys(plan.state.usage?.byModel ?? {})).toEqual(['model']);
  });
});

describe('a provider wait', () => {
  it('is not taken by a cancelled run asking for its final answer: it finishes without one', () => {
    const state: PlannerState = { ...start().state, finalizing: 'stop', finalizingCode: 'cancelled' };
    const finish = stepOf(afterModel(state, refused('slow down', 1_000)), 'finish');
    expect(finish.answer).toMatch(
      /^The run ended without a final answer: it was cancelled \(stop\), and the model could not be reached \(slow down\)/,
    );
    // A run finishing for another reason (a cap) still waits for the provider.
    const capped: PlannerState = { ...start().state, finalizing: 'cap', finalizingCode: 'limit_reached' };
    expect(stepOf(afterModel(capped, refused('slow down', 1_000)), 'back_off').delayMs).toBeGreaterThan(0);
  });

  it('is cut to the time budget left, human waits and the start of the run left out', () => {
    const state: PlannerState = {
      ...start({ timeBudgetMs: 10_000 }, 1_000).state,
      humanWaitMs: 2_000,
    };
    // At 5 s the run has used 2 s of its 10: a 20 s retry-after waits the 8 s left.
    expect(stepOf(afterModel(state, refused('slow down', 20_000), 5_000), 'back_off').delayMs).toBe(8_000);
    // With no time left at all, the run ends rather than waiting a moment.
    const spent = afterModel(state, refused('slow down', 20_000), 13_000);
    expect(stepOf(spent, 'finish').end?.code).toBe('model_unavailable');
  });

  it('once patience is spent, the end says how long and how many waits, and at most 300 characters of the error', () => {
    const state: PlannerState = {
      ...start({ modelPatienceMs: 10_000 }).state,
      providerWait: { since: 4_000, attempts: 3, refusals: 3 },
    };
    const plan = afterModel(state, refused(`busy ${'x'.repeat(400)}`), 16_000);
    expect(stepOf(plan, 'finish').answer).toBe(
      `The run ended: the model provider did not take the call for 12 s (3 waits; busy ${'x'.repeat(295)})`,
    );
  });

  it('without a random number, runs refused together wait differently (the run key spreads them)', () => {
    const wait = (runKey: string) =>
      stepOf(afterModel({ ...start().state, runKey }, modelFailure('rate_limited')), 'back_off').delayMs;
    const waits = ['run-a', 'run-b', 'run-c', 'run-d'].map(wait);
    expect(new Set(waits).size).toBe(waits.length);
    expect(wait('run-a')).toBe(waits[0]);
  });
});

describe('a model that cannot be used ends the run with the reason bounded', () => {
  const long = 'y'.repeat(1_000);

  it('misconfigured: the answer keeps 400 characters of the error, the step reason 200 of the message', () => {
    const outcome: ModelOutcome = { ...refused(long), failure: 'misconfigured' };
    const finish = stepOf(afterModel(start().state, outcome), 'finish');
    const message = `the model cannot be used as configured (${long.slice(0, 400)})`;
    expect(finish.answer).toBe(`The run ended: ${message}`);
    expect(finish.reason).toBe(`model_misconfigured: ${message.slice(0, 200)}`);
  });

  it("a model client's own error: unavailable, with 400 characters of it", () => {
    const outcome: ModelOutcome = { status: 'error', error: toolError('internal_error', long) };
    const finish = stepOf(afterModel(start().state, outcome), 'finish');
    expect(finish.answer).toBe(`The run ended: the model could not be reached (${long.slice(0, 400)})`);
    expect(finish.end?.code).toBe('model_unavailable');
  });
});

describe('unusable replies past the retries force a final turn the outcome names model_unusable', () => {
  it('a malformed reply', () => {
    const state = { ...start().state, modelRetries: start().state.policy.maxModelRetries };
    const plan = afterModel(state, modelError('malformed_model_output'));
    expect(stepOf(plan, 'call_model').toolChoice).toBe('none');
    expect(plan.state.finalizingCode).toBe('model_unusable');
  });

  it('no response at all', () => {
    const state = { ...start().state, modelRetries: start().state.policy.maxModelRetries };
    const plan = afterModel(state, NO_RESPONSE);
    expect(stepOf(plan, 'call_model').toolChoice).toBe('none');
    expect(plan.state.finalizingCode).toBe('model_unusable');
  });
});
