import { describe, expect, it } from 'vitest';
import { budgetDecisionJsonSchema, parseBudgetDecision } from './budget-decision.js';

const refused = (value: unknown) => {
  const parsed = parseBudgetDecision(value);
  return parsed.ok ? 'taken' : parsed.message;
};

describe('a budget decision: one schema, one parser', () => {
  it('takes an extension of tokens and/or cost, or a stop; drops what is beside it', () => {
    expect(parseBudgetDecision({ type: 'extend', tokens: 500, note: 'x' })).toEqual({
      ok: true,
      value: { type: 'extend', tokens: 500 },
    });
    expect(parseBudgetDecision({ type: 'extend', tokens: 1, costUsd: 0.5 })).toEqual({
      ok: true,
      value: { type: 'extend', tokens: 1, costUsd: 0.5 },
    });
    expect(parseBudgetDecision({ type: 'stop', reason: '  enough ' })).toEqual({
      ok: true,
      value: { type: 'stop', reason: 'enough' },
    });
    expect(parseBudgetDecision({ type: 'stop', reason: ' ' })).toEqual({ ok: true, value: { type: 'stop' } });
    expect(parseBudgetDecision({ type: 'stop' })).toEqual({ ok: true, value: { type: 'stop' } });
    expect(parseBudgetDecision({ type: 'extend', costUsd: 2 })).toEqual({
      ok: true,
      value: { type: 'extend', costUsd: 2 },
    });
  });

  it('refuses, in words, what no run could take', () => {
    expect(refused({ type: 'extend' })).toBe('An extension names tokens, costUsd or both.');
    expect(refused({ type: 'extend', tokens: 1.5 })).toMatch(/"tokens" is a whole number from 1/);
    expect(refused({ type: 'extend', tokens: 0 })).toMatch(/"tokens" is a whole number from 1/);
    expect(refused({ type: 'extend', costUsd: 0 })).toMatch(/"costUsd" is a number above 0/);
    expect(refused({ type: 'extend', costUsd: 'lots' })).toMatch(/"costUsd" is a number above 0/);
    expect(refused({ type: 'stop', reason: 'x'.repeat(2_001) })).toMatch(/at most 2000 characters/);
    expect(refused({ type: 'more' })).toMatch(/A budget decision is/);
    expect(refused('extend')).toMatch(/A budget decision is/);
  });

  it("gives the JSON Schema, the used-up limit's field required in an extension", () => {
    const schema = budgetDecisionJsonSchema('cost') as { oneOf: { properties: object; required: string[] }[] };
    expect(schema.oneOf.map((s) => s.required)).toEqual([['type', 'costUsd'], ['type']]);
    const tokens = budgetDecisionJsonSchema('tokens') as typeof schema & Record<string, unknown>;
    expect(tokens.oneOf.map((s) => s.required)).toEqual([['type', 'tokens'], ['type']]);
    expect(tokens.$schema).toBeUndefined();
    expect(schema.oneOf[0]!.properties).toMatchObject({
      tokens: { type: 'integer', minimum: 1 },
      costUsd: { type: 'number', exclusiveMinimum: 0 },
    });
  });
});
