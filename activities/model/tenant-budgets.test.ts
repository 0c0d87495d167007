/** Per-tenant budget windows: UTC day and month ids and ends, which budget applies, which window is spent. */
import { describe, expect, it } from 'vitest';
import { budgetOf, spentText, spentWindow, windowsAt } from './tenant-budgets.js';

describe('windowsAt', () => {
  it('names the UTC day and month and when each ends', () => {
    const w = windowsAt(Date.UTC(2026, 10, 26, 19, 20));
    expect(w.day).toEqual({ window: 'day', id: '2026-11-26', endsAt: Date.UTC(2026, 10, 27) });
    expect(w.month).toEqual({ window: 'month', id: '2026-11', endsAt: Date.UTC(2026, 11, 1) });
  });

  it('rolls over at midnight UTC, across a month and a year end', () => {
    expect(windowsAt(Date.UTC(2026, 11, 31, 23, 59, 59, 999)).day.id).toBe('2026-12-31');
    const next = windowsAt(Date.UTC(2027, 0, 1));
    expect(next.day).toMatchObject({ id: '2027-01-01', endsAt: Date.UTC(2027, 0, 2) });
    expect(next.month).toMatchObject({ id: '2027-01', endsAt: Date.UTC(2027, 1, 1) });
    expect(windowsAt(Date.UTC(2026, 11, 15)).month.endsAt).toBe(Date.UTC(2027, 0, 1));
  });

  it('knows leap days', () => {
    expect(windowsAt(Date.UTC(2028, 1, 29, 12)).day).toMatchObject({ id: '2028-02-29', endsAt: Date.UTC(2028, 2, 1) });
    expect(windowsAt(Date.UTC(2028, 1, 10)).month.endsAt).toBe(Date.UTC(2028, 2, 1));
  });
});

describe('budgetOf', () => {
  const options = { default: { perDay: { maxTokens: 100 } }, tenants: { big: { perMonth: { maxCostUsd: 5 } } } };
  it("takes a tenant's own budget over the default", () => {
    expect(budgetOf(options, 'big')).toEqual({ perMonth: { maxCostUsd: 5 } });
    expect(budgetOf(options, 'acme')).toEqual({ perDay: { maxTokens: 100 } });
  });
  it('leaves a tenant unlimited without a default', () => {
    expect(budgetOf({ tenants: options.tenants }, 'acme')).toBeUndefined();
    expect(budgetOf({ tenants: options.tenants }, 'toString')).toBeUndefined();
  });
});

describe('spentWindow', () => {
  const spans = windowsAt(Date.UTC(2026, 10, 26));
  const zero = { tokens: 0, costUsd: 0 };
  it('is undefined while every window has room', () => {
    const budget = { perDay: { maxTokens: 100, maxCostUsd: 1 }, perMonth: { maxTokens: 1_000 } };
    expect(spentWindow('a', budget, spans, { day: { tokens: 99, costUsd: 0.99 }, month: { tokens: 999, costUsd: 5 } })).toBeUndefined();
  });
  it('names the day at its token limit (reached counts as spent)', () => {
    const spent = spentWindow('a', { perDay: { maxTokens: 100 } }, spans, { day: { tokens: 100, costUsd: 0 }, month: zero });
    expect(spent).toEqual({ tenant: 'a', window: 'day', id: '2026-11-26', limit: 'tokens', used: 100, max: 100 });
    expect(spentText(spent!)).toBe('tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC)');
  });
  it('names the month at its cost limit, with the day still open', () => {
    const spent = spentWindow('a', { perDay: { maxCostUsd: 1 }, perMonth: { maxCostUsd: 3 } }, spans, { day: { tokens: 5, costUsd: 0.5 }, month: { tokens: 50, costUsd: 3.0000000004 } });
    expect(spent).toEqual({ tenant: 'a', window: 'month', id: '2026-11', limit: 'cost', used: 3, max: 3 });
    expect(spentText(spent!)).toMatch(/monthly cost budget \(3 of 3 USD in 2026-11 UTC\)/);
  });
  it('ignores a window the budget does not limit', () => {
    expect(spentWindow('a', { perMonth: { maxTokens: 10 } }, spans, { day: { tokens: 1e9, costUsd: 1e9 }, month: { tokens: 9, costUsd: 0 } })).toBeUndefined();
  });
});
