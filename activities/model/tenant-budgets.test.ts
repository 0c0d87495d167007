/** Per-tenant budget windows: UTC day and month ids and ends, which budget applies, which window is spent. */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { budgetOf, redisTenantBudgets, spentText, spentWindow, windowsAt } from './tenant-budgets.js';

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
    expect(
      spentWindow('a', budget, spans, { day: { tokens: 99, costUsd: 0.99 }, month: { tokens: 999, costUsd: 5 } }),
    ).toBeUndefined();
  });
  it('names the day at its token limit (reached counts as spent)', () => {
    const spent = spentWindow('a', { perDay: { maxTokens: 100 } }, spans, {
      day: { tokens: 100, costUsd: 0 },
      month: zero,
    });
    expect(spent).toEqual({ tenant: 'a', window: 'day', id: '2026-11-26', limit: 'tokens', used: 100, max: 100 });
    expect(spentText(spent!)).toBe('tenant "a" has used its daily token budget (100 of 100 tokens in 2026-11-26 UTC)');
  });
  it('names the month at its cost limit, with the day still open', () => {
    const spent = spentWindow('a', { perDay: { maxCostUsd: 1 }, perMonth: { maxCostUsd: 3 } }, spans, {
      day: { tokens: 5, costUsd: 0.5 },
      month: { tokens: 50, costUsd: 3.0000000004 },
    });
    expect(spent).toEqual({ tenant: 'a', window: 'month', id: '2026-11', limit: 'cost', used: 3, max: 3 });
    expect(spentText(spent!)).toMatch(/monthly cost budget \(3 of 3 USD in 2026-11 UTC\)/);
  });
  it('ignores a window the budget does not limit', () => {
    expect(
      spentWindow('a', { perMonth: { maxTokens: 10 } }, spans, {
        day: { tokens: 1e9, costUsd: 1e9 },
        month: { tokens: 9, costUsd: 0 },
      }),
    ).toBeUndefined();
  });
});

describe('redisTenantBudgets', () => {
  it('lets calls go unchecked when Redis is unreachable, saying so once', async () => {
    const said: string[] = [];
    // Port 1 on the loopback: nothing listens, the connection is refused at once.
    const budgets = redisTenantBudgets({
      url: 'redis://127.0.0.1:1',
      timeoutMs: 200,
      log: (m) => said.push(m),
      default: { perDay: { maxTokens: 1 } },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const admission = await budgets.admit('acme');
        expect(admission.go).toBe(true);
        if (admission.go) await admission.charge({ inputTokens: 10, outputTokens: 10 });
      }
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        /^cairn: per-tenant model budgets are off until Redis is reachable \(.*\); calls go to the provider unchecked and are not counted\.$/,
      );
    } finally {
      await budgets.close();
    }
  });

  it('does not limit a run without a tenant, or a tenant without a budget', async () => {
    const budgets = redisTenantBudgets({
      url: 'redis://127.0.0.1:1',
      log: () => expect.unreachable('Redis is never asked'),
      tenants: { acme: { perDay: { maxTokens: 1 } } },
    });
    expect((await budgets.admit(undefined)).go).toBe(true);
    expect((await budgets.admit('globex')).go).toBe(true);
    await budgets.close();
  });

  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  it.skipIf(process.env.CAIRN_NO_REDIS === '1')(
    'charges both windows in Redis, stops at the day, and starts the next day afresh (the month goes on)',
    async () => {
      const keyPrefix = `cairn-test:${randomUUID()}:`;
      let now = Date.UTC(2026, 10, 26, 23, 59);
      const said: string[] = [];
      const budgets = redisTenantBudgets(
        {
          url: redisUrl,
          keyPrefix,
          log: (m) => said.push(m),
          tenants: { acme: { perDay: { maxTokens: 50 }, perMonth: { maxTokens: 120, maxCostUsd: 1 } } },
        },
        () => now,
      );
      try {
        const call = async (allowance?: { tokens: number; costUsd: number }) => {
          const admission = await budgets.admit('acme', allowance);
          if (admission.go) await admission.charge({ inputTokens: 20, outputTokens: 10, costUsd: 0.01 });
          return admission.go ? 'go' : `${admission.spent.window}:${admission.spent.limit}:${admission.spent.used}`;
        };
        const first = await call();
        if (said.length > 0) return void console.warn(`tenant-budgets Redis test skipped: ${said[0]}`);
        expect([first, await call()]).toEqual(['go', 'go']);
        // 60 of 50: spent. Before that call, 30 was under 90% of 50 (45): no wrap-up was due.
        expect(await call()).toBe('day:tokens:60');
        // A run a person allowed past the window goes, and is charged.
        expect(await call({ tokens: 5, costUsd: 0 })).toBe('go');
        expect(await call({ tokens: 0, costUsd: 1 })).toBe('day:tokens:90');
        now += 60_000; // 2026-11-27: a new day, the same month
        const next = await budgets.admit('acme');
        // 90 of the month's 120 is not yet 90% (108): the call goes without a wrap-up.
        expect(next).toMatchObject({ go: true });
        expect(next).not.toHaveProperty('near');
        if (next.go) await next.charge({ inputTokens: 10, outputTokens: 10, costUsd: 0.01 });
        // 110 of 120: near the month's tokens.
        const nearing = await budgets.admit('acme');
        expect(nearing).toMatchObject({ go: true, near: { window: 'month', limit: 'tokens', used: 110, max: 120 } });
        if (nearing.go) await nearing.charge({ inputTokens: 0, outputTokens: 0 });
        // 140 of the month's 120 and 50 of the day's 50: the day is named first.
        expect([await call(), await call()]).toEqual(['go', 'day:tokens:50']);
        const redis = createClient({ url: redisUrl });
        await redis.connect();
        expect(await redis.hGetAll(`${keyPrefix}acme:month:2026-11`)).toEqual({ tokens: '140', cost: '0.05' });
        // The day's key lives a day past its window, counted on Redis's clock from the charge: its
        // window had 60 s left (the injected clock), so its TTL is at most 86,460 s whatever the date.
        const ttl = await redis.ttl(`${keyPrefix}acme:day:2026-11-26`);
        expect(ttl).toBeGreaterThan(86_400 - 600);
        expect(ttl).toBeLessThanOrEqual(86_460);
        for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
        await redis.quit();
      } finally {
        await budgets.close();
      }
    },
  );
});
