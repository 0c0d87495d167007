/** The default policy an agent runs under, and how an agent's and a run's overrides layer on it. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, resolvePolicy } from './policy.js';

describe('resolvePolicy', () => {
  it('without overrides is the documented default policy', () => {
    expect(resolvePolicy()).toBe(DEFAULT_POLICY);
    expect(resolvePolicy(undefined, {})).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY).toEqual({
      maxTurns: 16,
      maxToolCalls: 64,
      maxCallsPerTurn: 32,
      maxConsecutiveFailedBatches: 5,
      timeBudgetMs: null,
      retryBudgetPerTurn: 3,
      retryBudgetOnce: 1,
      loopThreshold: 3,
      maxRepairsPerTool: 3,
      backoff: { initialMs: 1_000, coefficient: 2, maxMs: 60_000, jitter: 0.2, maxRetryAfterMs: 600_000 },
      maxModelRetries: 2,
      modelPatienceMs: 600_000,
      onModelFailure: 'fail',
      budget: { maxTokens: null, maxCostUsd: null, wrapUpAt: 0.9, onExhausted: 'end' },
      maxNudges: 1,
      missingFieldsFrom: 'model',
      disableToolForTurns: null,
      context: { maxChars: 400_000, keepRecentTurns: 6, oldResultChars: 2_000 },
      history: { maxBytes: 5_000_000, maxEvents: 5_000 },
      onLoop: 'clarify',
      clarificationTimeoutMs: null,
      onClarificationTimeout: 'finalize',
      onMessage: 'enqueue',
      onOutcomeUnknown: 'clarify',
      whileReviewing: 'hold_batch',
      readerLingerMs: 5000,
    });
  });

  it('layers overrides in order, later ones winning, and merges the groups field by field', () => {
    const agent = {
      maxTurns: 4,
      backoff: { initialMs: 10 },
      context: { maxChars: 1_000 },
      history: { maxEvents: 100 },
    };
    const run = { maxTurns: 9, backoff: { maxMs: 20 }, context: { keepRecentTurns: 2 }, history: { maxBytes: 50 } };
    const policy = resolvePolicy(agent, undefined, run);
    expect(policy.maxTurns).toBe(9);
    expect(policy.maxToolCalls).toBe(DEFAULT_POLICY.maxToolCalls);
    expect(policy.backoff).toEqual({ ...DEFAULT_POLICY.backoff, initialMs: 10, maxMs: 20 });
    expect(policy.context).toEqual({ ...DEFAULT_POLICY.context, maxChars: 1_000, keepRecentTurns: 2 });
    expect(policy.history).toEqual({ maxBytes: 50, maxEvents: 100 });
    // The default itself is never changed.
    expect(DEFAULT_POLICY.maxTurns).toBe(16);
  });
});
