import { describe, expect, it } from 'vitest';
import { NO_USAGE, addUsage, costOf, priceOf, totalTokens } from './model-usage.js';

describe('model usage', () => {
  it('sums calls per run and per model, counting a call that reported no usage', () => {
    const one = addUsage(undefined, 'openai:gpt-4.1-mini', { inputTokens: 100, outputTokens: 20, costUsd: 0.5 });
    const two = addUsage(one, 'anthropic:claude', { inputTokens: 7 });
    const three = addUsage(two, 'openai:gpt-4.1-mini', undefined);
    expect(three).toStrictEqual({
      inputTokens: 107,
      outputTokens: 20,
      costUsd: 0.5,
      calls: 3,
      byModel: {
        'openai:gpt-4.1-mini': { inputTokens: 100, outputTokens: 20, costUsd: 0.5, calls: 2 },
        'anthropic:claude': { inputTokens: 7, outputTokens: 0, costUsd: 0, calls: 1 },
      },
    });
    // The value added to is not changed: usage is carried in the planner's state.
    expect(one.calls).toBe(1);
    expect(NO_USAGE).toStrictEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0, byModel: {} });
  });

  it('rounds costs to a billionth, so sums of floats replay the same and stay readable', () => {
    let usage = addUsage(undefined, 'm', { costUsd: 0.1 });
    usage = addUsage(usage, 'm', { costUsd: 0.2 });
    expect(usage.costUsd).toBe(0.3);
    expect(usage.byModel.m?.costUsd).toBe(0.3);
    expect(addUsage(undefined, 'm', { costUsd: 1.0000000004 }).costUsd).toBe(1);
  });

  it('counts tokens in and out, and none without usage', () => {
    expect(totalTokens({ inputTokens: 3, outputTokens: 4, costUsd: 0, calls: 1 })).toBe(7);
    expect(totalTokens(undefined)).toBe(0);
  });

  it('prices a call per million tokens, rounded to a billionth', () => {
    const price = { inputPerMillion: 2, outputPerMillion: 8 };
    expect(costOf(price, { inputTokens: 1_000_000, outputTokens: 500_000 })).toBe(6);
    expect(costOf(price, { inputTokens: 1 })).toBe(0.000002);
    expect(costOf(price, { outputTokens: 3 })).toBe(0.000024);
    expect(costOf({ inputPerMillion: 1, outputPerMillion: 0 }, { inputTokens: 1, outputTokens: 0 })).toBe(0.000001);
    expect(costOf({ inputPerMillion: 0.0001, outputPerMillion: 0 }, { inputTokens: 1 })).toBe(0);
  });

  it('has no cost without a price, without usage, or without any token count', () => {
    const price = { inputPerMillion: 2, outputPerMillion: 8 };
    expect(costOf(undefined, { inputTokens: 10 })).toBeUndefined();
    expect(costOf(price, undefined)).toBeUndefined();
    expect(costOf(price, { costUsd: 1 })).toBeUndefined();
    expect(costOf(price, { inputTokens: 0 })).toBe(0);
  });

  it('finds a price by the whole spec, else the model name, else the provider', () => {
    const whole = { inputPerMillion: 1, outputPerMillion: 1 };
    const name = { inputPerMillion: 2, outputPerMillion: 2 };
    const provider = { inputPerMillion: 3, outputPerMillion: 3 };
    const prices = { 'openai:gpt-4.1-mini': whole, 'gpt-4.1-mini': name, 'gpt-4.1': name, openai: provider };
    expect(priceOf(prices, 'openai:gpt-4.1-mini')).toBe(whole);
    expect(priceOf(prices, 'azure:gpt-4.1')).toBe(name);
    expect(priceOf(prices, 'openai:o3')).toBe(provider);
    expect(priceOf(prices, 'gpt-4.1-mini')).toBe(name);
    expect(priceOf(prices, 'anthropic:claude')).toBeUndefined();
    expect(priceOf(undefined, 'openai:o3')).toBeUndefined();
    // A spec that starts with its colon has an empty provider, and its name after the colon.
    expect(priceOf({ o3: name }, ':o3')).toBe(name);
    // A spec without a colon is only itself: nothing shorter is looked up.
    expect(priceOf({ 'gpt-4': name }, 'gpt-4o')).toBeUndefined();
  });

  it('reads only the table itself, never what objects inherit', () => {
    expect(priceOf({}, 'toString')).toBeUndefined();
    expect(priceOf({}, 'openai:constructor')).toBeUndefined();
  });
});
