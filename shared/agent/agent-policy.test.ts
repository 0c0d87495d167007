import { describe, expect, it } from 'vitest';
import { policyOverridesSchema } from './agent-policy.js';

const parse = (overrides: unknown) => policyOverridesSchema.safeParse(overrides);

describe('policyOverridesSchema', () => {
  it('accepts every documented value of each choice', () => {
    const choices = {
      missingFieldsFrom: ['model', 'user'],
      onLoop: ['clarify', 'finalize'],
      onClarificationTimeout: ['continue', 'finalize'],
      onOutcomeUnknown: ['clarify', 'inform'],
      onMessage: ['enqueue', 'interrupt', 'reject'],
    };
    for (const [field, values] of Object.entries(choices)) {
      for (const value of values) expect(parse({ [field]: value }).success, `${field}: ${value}`).toBe(true);
      expect(parse({ [field]: 'sometimes' }).success, field).toBe(false);
    }
  });

  it("accepts any subset of a group's fields, and refuses a field no group has, naming it", () => {
    const groups = {
      backoff: { initialMs: 100, coefficient: 2, maxMs: 10_000, maxRetryAfterMs: 60_000, jitter: 0.1 },
      context: { maxChars: 50_000, keepRecentTurns: 2, oldResultChars: 500 },
      history: { maxBytes: 1_000_000, maxEvents: 1_000 },
    };
    expect(parse({ maxTurns: 3, ...groups }).success).toBe(true);
    for (const [group, fields] of Object.entries(groups)) {
      for (const [field, value] of Object.entries(fields))
        expect(parse({ [group]: { [field]: value } }).success, `${group}.${field}`).toBe(true);
      const refused = parse({ [group]: { retries: 1 } });
      expect(refused.success, group).toBe(false);
      expect(JSON.stringify(refused.error?.issues)).toContain('retries');
    }
    expect(parse({ maxTurn: 3 }).success).toBe(false);
  });

  it('refuses values the planner cannot use', () => {
    for (const bad of [
      { maxTurns: 0 },
      { maxToolCalls: -1 },
      { timeBudgetMs: -5 },
      { backoff: { coefficient: 0.5 } },
      { backoff: { jitter: 2 } },
      { context: { maxChars: 100 } },
      { history: { maxEvents: 10 } },
      { readerLingerMs: 61_000 },
      { maxTurns: '3' },
    ]) {
      expect(parse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(parse({ timeBudgetMs: null, clarificationTimeoutMs: null, disableToolForTurns: null }).success).toBe(true);
  });
});
