/**
 * The inbox is answered by visibility alone: each run publishes what it waits for in its memo, so
 * `GET /inbox` makes one visibility list and no Query. Shown by stopping the only worker (a Query
 * would then wait for one) and reading every page again. Oldest-waiting first, cursor paging with
 * a total, "waiting since" on each item, scoped per tenant. A run waiting on its budget publishes
 * it too; a run that continues as new while it waits keeps its waiting-since and its tenant.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnClient, type StartRunOptions } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import type { InboxItem, InboxPage } from '../servers/http/inbox.js';
import { scriptStep, type FixedStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { awaiting, waitFor } from './support/runs.js';
import { connectClient, startTestWorker, type TestWorker } from './support/temporal.js';
import type { Client } from '@temporalio/client';
import { stateQuery } from '../workflows/contract/index.js';
import type { WaitingSummary } from '../workflows/contract/waiting-memo.js';

let w: TestWorker;
let served: Served;
let model = '';
/** More start options for the next run a request starts. */
let more: Partial<StartRunOptions> = {};
let stopped = false;
/** What an earlier test's tenant's inbox showed, to read again with no worker. */
let earlier: { tenant: string; items: InboxItem[] } | undefined;
/** The handler's own connection: it outlives the worker's. */
let own: Client;

beforeAll(async () => {
  [w, own] = await Promise.all([startTestWorker(), connectClient()]);
  const client = new CairnClient({ client: own, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      authorize: (request) => ({ tenant: request.headers.get('x-tenant') ?? 'none' }),
      startOptions: () => ({ model, ...more, temporal: { workflowExecutionTimeout: '3m' } }),
    }),
  );
});
afterAll(async () => {
  await served?.close();
  if (!stopped) await w?.stop();
  await own?.connection.close();
});

async function startAs(tenant: string, orderId: string): Promise<string> {
  ({ model } = w.script([scriptStep.call('issue_refund', { orderId, amount: 80 }), scriptStep.text('Refunded.')]));
  const response = await fetch(`${served.url}/runs`, {
    method: 'POST',
    headers: { 'x-tenant': tenant, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'test', prompt: `Refund ${orderId}.` }),
  });
  expect(response.status).toBe(201);
  const { runId } = (await response.json()) as { runId: string };
  // One after the other: each waits from a later moment than the one before.
  await awaiting(w.client.workflow.getHandle(runId), 'awaiting_review');
  return runId;
}

async function allPages(
  tenant: string,
  limit: number,
): Promise<{ items: InboxItem[]; totals: number[]; pages: number }> {
  const items: InboxItem[] = [];
  const totals: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const response = await fetch(`${served.url}/inbox?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { 'x-tenant': tenant },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as InboxPage;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    totals.push(page.total);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { items, totals, pages };
}

describe('the inbox from visibility', () => {
  it('a run waiting on its budget, and one that continued as new while it waits, publish what they wait for and since when', async () => {
    const tenant = `b${randomUUID().slice(0, 8)}`;
    const start = async (prompt: string) => {
      const response = await fetch(`${served.url}/runs`, {
        method: 'POST',
        headers: { 'x-tenant': tenant, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'test', prompt }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { runId: string }).runId;
    };
    // Over its budget (35 tokens of 30) on its first reply: it asks a person for more.
    ({ model } = w.script([
      {
        ...(scriptStep.call('lookup_order', { orderId: 'A-1' }) as Extract<FixedStep, { kind: 'respond' }>),
        usage: { inputTokens: 20, outputTokens: 15 },
      },
      scriptStep.text('Found.'),
    ]));
    more = { policy: { budget: { maxTokens: 30, onExhausted: 'ask', wrapUpAt: 1 } } };
    const budgeted = await start('Look up A-1.');
    const asked = await awaiting(w.client.workflow.getHandle(budgeted), 'awaiting_budget');
    // Hands over (continue-as-new) after one turn: the review it waits on goes with it.
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'C-1', amount: 80 }),
      scriptStep.text('Refunded.'),
    ]));
    more = { continueAsNewAfterTurns: 1 };
    const continued = await start('Refund C-1.');
    more = {};
    const handle = w.client.workflow.getHandle(continued);
    const handedOver = await waitFor(async () => {
      const s = await handle.query(stateQuery);
      return s.generation === 1 && s.phase === 'awaiting_review' ? s : undefined;
    }, 'the second run of the chain waits on the review');

    const budgetMemo = (await own.workflow.getHandle(budgeted).describe()).memo?.cairnWaiting as WaitingSummary;
    expect(budgetMemo).toMatchObject({
      v: 1,
      phase: 'awaiting_budget',
      tenant,
      budget: { pending: { id: asked.budget!.pending!.id, limit: 'tokens' } },
    });
    const secondRun = await own.workflow.getHandle(continued).describe();
    const chainMemo = secondRun.memo?.cairnWaiting as WaitingSummary;
    expect(chainMemo).toMatchObject({
      v: 1,
      phase: 'awaiting_review',
      tenant,
      reviews: [{ toolCallId: handedOver.reviews[0]!.toolCallId }],
    });
    let first: WaitingSummary | undefined;
    for await (const info of own.workflow.list({
      query: `WorkflowId = '${continued}' AND ExecutionStatus = 'ContinuedAsNew'`,
    }))
      first = (await own.workflow.getHandle(continued, info.runId).describe()).memo?.cairnWaiting as WaitingSummary;
    expect(first).toMatchObject({ phase: 'awaiting_review' });
    // Waiting since the first run of the chain asked, not since the second started.
    expect(chainMemo.since).toBe(first!.since);
    expect(chainMemo.since).toBeLessThan(secondRun.startTime.getTime());
    expect(secondRun.memo?.cairnTenant).toBe(tenant);
    expect((await fetch(`${served.url}/runs/${continued}`, { headers: { 'x-tenant': tenant } })).status).toBe(200);
    expect((await fetch(`${served.url}/runs/${continued}`, { headers: { 'x-tenant': 'someone-else' } })).status).toBe(
      404,
    );

    const read = await waitFor(async () => {
      const got = await allPages(tenant, 50);
      return got.items.length === 2 ? got : undefined;
    }, 'both listed');
    const byId = new Map(read.items.map((i) => [i.runId, i]));
    expect(byId.get(budgeted)).toMatchObject({
      phase: 'awaiting_budget',
      waitingSince: new Date(budgetMemo.since).toISOString(),
      request: 'Look up A-1.',
      // The request's id in the thread: its own, with the run's scope (servers/http/run-scope.ts).
      waiting: [
        { kind: 'budget', id: expect.stringMatching(new RegExp(`^budget:${asked.budget!.pending!.id}@[0-9a-f]{12}$`)) },
      ],
    });
    expect(byId.get(budgeted)!.waiting[0]!.schema).toBeDefined();
    expect(byId.get(continued)).toMatchObject({
      phase: 'awaiting_review',
      waitingSince: new Date(chainMemo.since).toISOString(),
      waiting: [{ kind: 'review' }],
    });
    earlier = { tenant, items: read.items };
  });

  it('pages oldest-waiting first with a total and waiting since, per tenant, and answers with no worker (no Query)', async () => {
    const tenant = `t${randomUUID().slice(0, 8)}`;
    const other = `o${randomUUID().slice(0, 8)}`;
    const ids = [];
    for (const order of ['A-1', 'A-2', 'A-3', 'A-4', 'A-5']) ids.push(await startAs(tenant, order));
    const elsewhere = await startAs(other, 'B-1');

    const read = await waitFor(async () => {
      const got = await allPages(tenant, 2);
      return got.items.length === ids.length ? got : undefined;
    }, 'all five listed');
    // Oldest-waiting first; every run reachable by paging; the total on every page.
    expect(read.items.map((i) => i.runId)).toEqual(ids);
    expect(read.pages).toBe(3);
    expect(new Set(read.totals)).toEqual(new Set([5]));
    const since = read.items.map((i) => new Date(i.waitingSince).getTime());
    expect([...since].sort((a, b) => a - b)).toEqual(since);
    for (const item of read.items) {
      expect(new Date(item.waitingSince).getTime()).toBeGreaterThanOrEqual(new Date(item.startedAt).getTime());
      expect(item.request).toMatch(/^Refund A-\d\.$/);
      expect(item.waiting[0]).toMatchObject({ kind: 'review', review: { name: 'issue_refund' } });
    }
    expect(read.items.map((i) => i.runId)).not.toContain(elsewhere);

    // What the run published: its memo holds what it waits for.
    expect((await own.workflow.getHandle(ids[0]!).describe()).memo?.cairnWaiting).toMatchObject({
      v: 1,
      agent: 'test',
      phase: 'awaiting_review',
      tenant,
      request: 'Refund A-1.',
    });
    // No worker: a Query would wait for one. The inbox answers all the same, the same items.
    await w.stop();
    stopped = true;
    const without = await allPages(tenant, 2);
    expect(without.items).toEqual(read.items);
    expect((await allPages(other, 50)).items.map((i) => i.runId)).toEqual([elsewhere]);
    // The budget request and the handed-over run too: from their memos alone.
    if (earlier) expect((await allPages(earlier.tenant, 50)).items).toEqual(earlier.items);
    expect((await fetch(`${served.url}/inbox?cursor=nonsense`, { headers: { 'x-tenant': tenant } })).status).toBe(400);
    for (const id of [...ids, elsewhere, ...(earlier?.items.map((i) => i.runId) ?? [])])
      await own.workflow.getHandle(id).terminate('test done');
  });
});
