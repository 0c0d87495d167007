/** Provider refusals are waits (full jitter, retry-after as the floor, bounded by patience), and model failures end runs as what they are. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from './policy.js';
import { providerWaitDelay, unitFromKey } from './provider-wait.js';
import { runOutcome } from './run-outcome.js';
import { afterModel, drive, modelError, modelFailure, start, stepOf, textReply } from './testing.js';
import { toolError } from '../shared/failures/tool-error.js';

const backoff = DEFAULT_POLICY.backoff;

describe('providerWaitDelay', () => {
  it('is full jitter over the capped exponential, on top of the retry-after', () => {
    expect(providerWaitDelay(backoff, 1, 0, 'rate_limited')).toBe(0);
    expect(providerWaitDelay(backoff, 1, 0.5, 'rate_limited')).toBe(500);
    expect(providerWaitDelay(backoff, 3, 0.5, 'rate_limited')).toBe(2_000);
    expect(providerWaitDelay(backoff, 3, 0.5, 'overloaded', 1_000)).toBe(3_000);
    // Capped at maxMs however many attempts.
    expect(providerWaitDelay(backoff, 40, 0.5, 'rate_limited')).toBe(30_000);
    // A unit out of range is clamped: never negative, never the whole cap.
    expect(providerWaitDelay(backoff, 1, -3, 'rate_limited', 100)).toBe(100);
    expect(providerWaitDelay(backoff, 1, 7, 'rate_limited')).toBe(999);
    expect(providerWaitDelay(backoff, 1, Number.NaN, 'rate_limited', 5)).toBe(5);
  });

  it('waits a flow-control permit exactly, and no retry-after longer than maxRetryAfterMs', () => {
    expect(providerWaitDelay(backoff, 5, 0.9, 'throttled', 1_234)).toBe(1_234);
    expect(providerWaitDelay({ ...backoff, maxRetryAfterMs: 2_000 }, 1, 0, 'rate_limited', 9_000)).toBe(2_000);
  });

  it('a negative retry-after is no floor: never a negative wait', () => {
    expect(providerWaitDelay(backoff, 1, 0, 'rate_limited', -5_000)).toBe(0);
    expect(providerWaitDelay(backoff, 1, 0.5, 'overloaded', -5_000)).toBe(500);
    expect(providerWaitDelay(backoff, 1, 0.5, 'throttled', -5_000)).toBe(0);
  });

  it('spreads runs refused together: different random numbers, different waits', () => {
    const delays = [0.1, 0.3, 0.5, 0.7, 0.9].map((u) => providerWaitDelay(backoff, 2, u, 'rate_limited', 1_000));
    expect(new Set(delays).size).toBe(5);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1_000);
  });
});

describe('unitFromKey', () => {
  it('is a number in [0, 1) that replays the same, and differs by run and attempt', () => {
    const units = ['run-a', 'run-b'].flatMap((key) => [1, 2, 3].map((attempt) => unitFromKey(key, attempt)));
    for (const u of units) {
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
    }
    expect(new Set(units).size).toBe(units.length);
    expect(unitFromKey('run-a', 2)).toBe(units[1]);
  });
});

describe('a rate-limited or overloaded model is waited for, up to the patience', () => {
  it('waits through many refusals without counting them as retries, then answers', () => {
    const storm = Array.from({ length: 8 }, (_, i) => modelFailure(i % 2 ? 'overloaded' : 'rate_limited', 1_000));
    const trace = drive({ model: [...storm, textReply('Done.')], random: () => 0.5 });
    const waits = trace.plans.flatMap((p) => (p.step.type === 'back_off' ? [p.step.delayMs] : []));
    expect(waits).toEqual([1_500, 2_000, 3_000, 5_000, 9_000, 17_000, 31_000, 31_000]);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Done.', reason: null });
    expect(trace.last.state.providerWait).toBeNull();
    expect(runOutcome(trace.last.state, stepOf(trace.last, 'finish'))).toEqual({ status: 'answered' });
  });

  it("flow control's holds are waited exactly and do not grow the back-off of the provider's own refusals", () => {
    const holds = Array.from({ length: 4 }, () => modelFailure('throttled', 700));
    const trace = drive({
      model: [...holds, modelFailure('rate_limited', 1_000), modelFailure('rate_limited', 1_000), textReply('Done.')],
      random: () => 0.5,
    });
    const waits = trace.plans.flatMap((p) => (p.step.type === 'back_off' ? [p.step.delayMs] : []));
    // The first refusal after four holds jitters over the first window (1 s), the second over the next (2 s).
    expect(waits).toEqual([700, 700, 700, 700, 1_500, 2_000]);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Done.', reason: null });
  });

  it('a wait carried from before refusals were counted apart grows with every attempt, as it did', () => {
    const state = { ...start().state, providerWait: { since: 0, attempts: 2 } };
    const plan = afterModel(state, modelFailure('rate_limited', 1_000), 0);
    // Its third refusal: 1 s and a share of 4 s.
    expect(plan.state.providerWait).toEqual({ since: 0, attempts: 3, refusals: 3 });
    expect(stepOf(plan, 'back_off').delayMs).toBeGreaterThanOrEqual(1_000);
    expect(stepOf(plan, 'back_off').delayMs).toBeLessThan(5_000);
  });

  it('past modelPatienceMs the run ends model_unavailable, failing unless the policy asks for a soft end', () => {
    const storm = Array.from({ length: 50 }, () => modelFailure('rate_limited', 1_000));
    const trace = drive({ policy: { modelPatienceMs: 10_000 }, model: storm, random: () => 0 });
    const finish = stepOf(trace.last, 'finish');
    expect(finish.end).toMatchObject({ code: 'model_unavailable', fail: true });
    expect(finish.answer).toMatch(/^The run ended: the model provider did not take the call for \d+ s/);
    // The last wait is cut to what patience has left: the run never waits past it.
    expect(trace.now).toBeLessThanOrEqual(10_000 + 10 * 1_000);
    const soft = drive({ policy: { modelPatienceMs: 5_000, onModelFailure: 'end' }, model: storm, random: () => 0 });
    expect(stepOf(soft.last, 'finish').end).toMatchObject({ code: 'model_unavailable', fail: false });
    expect(runOutcome(soft.last.state, stepOf(soft.last, 'finish'))).toMatchObject({
      status: 'ended',
      code: 'model_unavailable',
    });
  });

  it('the time budget bounds the patience', () => {
    const trace = drive({
      policy: { timeBudgetMs: 4_000 },
      model: Array.from({ length: 20 }, () => modelFailure('overloaded')),
      random: () => 0.99,
    });
    expect(stepOf(trace.last, 'finish').end?.code).toBe('model_unavailable');
    expect(trace.now).toBeLessThanOrEqual(4_000 + 2_000);
  });

  it('patience counts from the first refusal of a turn: a reply resets it', () => {
    const plan = afterModel(afterModel(start().state, modelFailure('rate_limited')).state, textReply('ok'), 5_000);
    expect(plan.state.providerWait).toBeNull();
  });

  it('a misconfigured model ends the run at once as model_misconfigured', () => {
    const plan = afterModel(start().state, modelFailure('misconfigured'));
    expect(stepOf(plan, 'finish')).toMatchObject({
      end: { code: 'model_misconfigured', fail: true },
      reason: expect.stringMatching(/^model_misconfigured: /),
    });
    expect(
      stepOf(afterModel(start({ onModelFailure: 'end' }).state, modelFailure('misconfigured')), 'finish').end?.fail,
    ).toBe(false);
  });

  it("each wait's reason says why the model did not take the call (the step log and the UI show it)", () => {
    const reason = (kind: Parameters<typeof modelFailure>[0]) =>
      stepOf(afterModel(start().state, modelFailure(kind, 1_000)), 'back_off').reason;
    expect(reason('throttled')).toBe('model call held by flow control');
    // A provider it cannot reach: the innermost cause and when the run gives up (its patience, 600 s here).
    expect(reason('unavailable')).toBe(
      'model provider unavailable (model call failed: unavailable); the run gives up in 600 s',
    );
    const unreachable = {
      status: 'error' as const,
      failure: 'unavailable' as const,
      error: {
        ...toolError('internal_error', 'Activity task failed'),
        cause: toolError(
          'internal_error',
          'Model provider could not be reached:\n connect ECONNREFUSED 127.0.0.1:7399',
        ),
      },
    };
    expect(stepOf(afterModel(start({ timeBudgetMs: 90_500 }).state, unreachable), 'back_off').reason).toBe(
      'model provider unavailable (Model provider could not be reached: connect ECONNREFUSED 127.0.0.1:7399); the run gives up in 91 s',
    );
    expect(reason('overloaded')).toBe('model provider overloaded');
    expect(reason('rate_limited')).toBe('model rate-limited');
  });

  it('a model client error coded timeout is a provider that is down: waited for', () => {
    expect(afterModel(start().state, modelError('timeout')).step.type).toBe('back_off');
  });
});
