/**
 * Per-tenant budgets across a fleet, on a real dev server with two worker processes sharing one
 * Redis: each worker polls its own task queue, and a tenant's runs alternate between them, so the
 * day's tokens one worker charged are what the other checks. Tenant acme (100 tokens a day) gets
 * three answers of 40 tokens, then its runs end `budget_exhausted` without a model call, naming
 * the window; tenant globex (no budget) keeps answering on both workers. Needs Redis at REDIS_URL
 * (default redis://127.0.0.1:6379): skipped, saying so, when there is none.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import type { Client } from '@temporalio/client';
import { windowsAt } from '../activities/model/tenant-budgets.js';
import { connectClient } from './support/temporal.js';
import { waitFor } from './support/runs.js';
import { extendBudgetUpdate, stateQuery } from '../workflows/contract/index.js';
import { startWorkerProcess } from './support/worker-process.js';
import { probeRedis, REDIS_URL } from './support/redis.js';

const unreachable = await probeRedis(REDIS_URL);
if (unreachable)
  console.warn(`test/tenant-budgets.test.ts skipped: Redis is not reachable at ${REDIS_URL} (${unreachable}).`);

let client: Client;
const workers: ChildProcess[] = [];
const prefix = `cairn-test:${randomUUID()}:tenant:`;
const queues = [`tenant-budget-${randomUUID()}`, `tenant-budget-${randomUUID()}`];
const redis = createClient({ url: REDIS_URL });

beforeAll(async () => {
  if (unreachable) return;
  client = await connectClient();
  await redis.connect();
  await Promise.all(
    queues.map((queue) =>
      startWorkerProcess('tenant-budget-worker.ts', { TASK_QUEUE: queue, KEY_PREFIX: prefix, REDIS_URL }, workers),
    ),
  );
}, 120_000);
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await client?.connection.close();
  if (redis.isOpen) {
    for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
    await redis.quit();
  }
});

interface Result {
  readonly answer: string;
  readonly outcome: { readonly status: string; readonly code?: string };
  readonly usage?: { readonly calls: number };
}

/** Starts the test agent for `tenant` on worker `n`'s queue. */
const start = (tenant: string, n: number, policy?: object, prompt = 'Say hello.') =>
  client.workflow.start('agentRun', {
    taskQueue: queues[n % 2]!,
    workflowId: `tenant-budget-${tenant}-${randomUUID()}`,
    args: [{ agent: 'test', prompt, model: 'scripted:metered', tenant, ...(policy && { policy }) }],
  });

/** Runs the test agent for `tenant` on worker `n`'s queue to its end. */
async function run(tenant: string, n: number, prompt?: string): Promise<Result> {
  return (await (await start(tenant, n, undefined, prompt)).result()) as Result;
}

describe.skipIf(unreachable !== undefined)('per-tenant budgets across two worker processes', () => {
  it("stop tenant acme's runs at its day's tokens, budget_exhausted, while globex's keep answering", {
    timeout: 180_000,
  }, async () => {
    const acme: Result[] = [];
    for (let n = 0; n < 5; n++) acme.push(await run('acme', n));
    // 40 tokens a run: 40, 80, 120; the fourth run finds the day spent (reached counts) on the other worker.
    const answeredBy = acme.slice(0, 3).map((r) => /^Answered by (\d+)\.$/.exec(r.answer)?.[1]);
    expect(acme.slice(0, 3).map((r) => r.outcome.status)).toEqual(['answered', 'answered', 'answered']);
    expect(new Set(answeredBy).size).toBe(2); // both worker processes answered and charged
    const day = windowsAt(Date.now()).day.id;
    for (const ended of acme.slice(3)) {
      expect(ended.outcome).toMatchObject({ status: 'ended', code: 'budget_exhausted' });
      expect(ended.answer).toMatch(
        /^The run ended: tenant "acme" has used its daily token budget \(120 of 100 tokens in \d{4}-\d{2}-\d{2} UTC\)\.$/,
      );
      expect(ended.usage?.calls ?? 0).toBe(0); // no model call was sent
    }

    // globex has no budget: it answers on both workers after acme was stopped.
    const globex = [await run('globex', 0), await run('globex', 1)];
    expect(globex.map((r) => r.outcome.status)).toEqual(['answered', 'answered']);
    expect(globex.map((r) => r.answer)).toEqual(acme.slice(0, 2).map((r) => r.answer));

    // The windows in Redis: acme's day and month hold what its three calls used (tokens, and cost from the prices); globex has none.
    const acmeDay = await redis.hGetAll(`${prefix}acme:day:${day}`);
    expect(acmeDay.tokens).toBe('120');
    expect(Number(acmeDay.cost)).toBeCloseTo(0.12, 9);
    expect((await redis.hGetAll(`${prefix}acme:month:${day.slice(0, 7)}`)).tokens).toBe('120');
    expect(await redis.ttl(`${prefix}acme:day:${day}`)).toBeGreaterThan(86_400);
    expect(await redis.keys(`${prefix}globex:*`)).toEqual([]);

    // onExhausted: 'ask': a person is asked, naming the window; extending gives this run an allowance past it (charged to the window).
    const asking = await start('acme', 0, { budget: { onExhausted: 'ask' } });
    const waiting = await waitFor(async () => {
      const state = await asking.query(stateQuery).catch(() => undefined);
      return state?.phase === 'awaiting_budget' ? state : undefined;
    }, 'the budget request');
    const pending = waiting.budget?.pending;
    expect(pending).toMatchObject({
      id: 'b1',
      limit: 'tokens',
      tenantWindow: { tenant: 'acme', window: 'day', id: day, limit: 'tokens', used: 120, max: 100 },
    });
    await asking.executeUpdate(extendBudgetUpdate, {
      args: [{ id: pending!.id, decision: { type: 'extend', tokens: 50 } }],
    });
    expect(((await asking.result()) as Result).outcome.status).toBe('answered');
    expect((await redis.hGetAll(`${prefix}acme:day:${day}`)).tokens).toBe('160');
  });

  it("wrap a run up near its tenant's window: one turn without tools after the batch, budget_exhausted with that answer", {
    timeout: 180_000,
  }, async () => {
    // initech: 200 tokens a day, wrap-up from 100 (the workers' wrapUpAt 0.5). Three runs: 120 used.
    for (let n = 0; n < 3; n++) expect((await run('initech', n)).outcome.status).toBe('answered');
    // The lookup's call goes at 120 (near): its batch runs, then the wrap-up turn (at 160, under 200) answers.
    const wrapped = await run('initech', 1, 'Look up A-1.');
    expect(wrapped.answer).toBe('Wrapped up.');
    expect(wrapped.outcome).toMatchObject({ status: 'ended', code: 'budget_exhausted' });
    expect((wrapped.outcome as { message?: string }).message).toMatch(
      /^tenant "initech" has nearly used its daily token budget \(120 of 200 tokens in \d{4}-\d{2}-\d{2} UTC\)$/,
    );
    expect((await redis.hGetAll(`${prefix}initech:day:${windowsAt(Date.now()).day.id}`)).tokens).toBe('200');
  });
});
