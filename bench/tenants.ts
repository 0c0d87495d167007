/**
 * `npx tsx bench/tenants.ts [waiting=300] [reads=30]`: the inbox of many waiting runs, answered
 * by visibility alone (issue 28). Starts `waiting` runs, each held on a review, for one tenant
 * (and a few for another), then reads `GET /inbox?limit=50` `reads` times (p50 / p90), pages
 * through every run, and reads again with the worker stopped: a read that made a Query would wait
 * for a worker that is gone, so equal answers mean no Query. On the embedded dev server with
 * FAST_DEV_SERVER_CONFIG (fairness on). The fairness half of the issue's bench (tenant B behind
 * A's backlog) is not here yet.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../client/http/cairn-http-handler.js';
import type { InboxPage } from '../client/http/inbox.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { startTestEnvironment } from '../testing/test-environment.js';
import { testAgent } from '../test/fixtures/agents.js';

const waiting = Number(process.argv[2] ?? 300);
const reads = Number(process.argv[3] ?? 30);

const env = await startTestEnvironment({ agents: [testAgent], workflowsPath: join(PACKAGE_ROOT, 'test', 'fixtures', 'workflows.ts') });
const client = new CairnClient({ client: env.temporal, taskQueue: env.taskQueue });
const handler = createCairnHttpHandler({ client, agents: [testAgent], authorize: (r) => ({ tenant: r.headers.get('x-tenant')! }) });
const get = async (tenant: string, query: string): Promise<{ ms: number; page: InboxPage }> => {
  const t = performance.now();
  const response = await handler(new Request(`http://bench/inbox?${query}`, { headers: { 'x-tenant': tenant } }));
  if (response.status !== 200) throw new Error(`GET /inbox: ${response.status} ${await response.text()}`);
  const page = (await response.json()) as InboxPage;
  return { ms: performance.now() - t, page };
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

try {
  const tenant = `a${randomUUID().slice(0, 6)}`;
  const startedAt = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < waiting; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, waiting - i) }, async (_, j) => {
        const { model } = env.script([scriptStep.call('issue_refund', { orderId: `A-${i + j}`, amount: 80 }), scriptStep.text('Refunded.')]);
        const run = await client.start({ agent: 'test', prompt: `Refund A-${i + j}.`, model, tenant });
        return run.workflowId;
      }),
    );
    ids.push(...batch);
  }
  // Every run waiting, as visibility tells it (no Query: 1,000 at once would swamp the worker).
  for (;;) {
    const { page } = await get(tenant, 'limit=1');
    if (page.total >= waiting) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const setupS = (performance.now() - startedAt) / 1000;

  const measure = async () => {
    const ms: number[] = [];
    for (let i = 0; i < reads; i++) ms.push((await get(tenant, 'limit=50')).ms);
    let cursor: string | undefined;
    const seen = new Set<string>();
    let pages = 0;
    do {
      const { page } = await get(tenant, `limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      for (const item of page.items) seen.add(item.runId);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    return { p50: pct(ms, 50), p90: pct(ms, 90), reachable: seen.size, pages };
  };
  const withWorker = await measure();
  env.worker.shutdown();
  while (env.worker.getState() !== 'STOPPED') await new Promise((r) => setTimeout(r, 100));
  const withoutWorker = await measure();
  const fmt = (m: typeof withWorker) => `p50 ${m.p50.toFixed(0)} ms, p90 ${m.p90.toFixed(0)} ms; ${m.reachable} of ${waiting} runs reachable in ${m.pages} pages`;
  console.log(`Inbox of ${waiting} waiting runs (set up in ${setupS.toFixed(0)} s), GET /inbox?limit=50 x ${reads}:`);
  console.log(`  worker running: ${fmt(withWorker)}`);
  console.log(`  worker stopped (a Query would wait for it): ${fmt(withoutWorker)}`);
  for (const id of ids) await env.temporal.workflow.getHandle(id).terminate('bench done').catch(() => undefined);
} finally {
  await env.close();
}
