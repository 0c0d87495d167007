/**
 * `npx tsx bench/tenants.ts [waiting=300] [reads=30]`: the inbox of many waiting runs, answered
 * by visibility alone (issue 28); `npx tsx bench/tenants.ts fairness [backlog=1000] [runs=5] [workflowSlots=4] [stickyTimeout=200ms]`: one
 * tenant's backlog against another's few runs (below). Starts `waiting` runs, each held on a review, for one tenant
 * (and a few for another), then reads `GET /inbox?limit=50` `reads` times (p50 / p90), pages
 * through every run, and reads again with the worker stopped: a read that made a Query would wait
 * for a worker that is gone, so equal answers mean no Query. On the embedded dev server with
 * FAST_DEV_SERVER_CONFIG (fairness on).
 *
 * Fairness: tenant B's `runs` runs alone (each: one model turn, a tool that takes 1 s, a final
 * answer), then tenant A starts `backlog` such runs and B its `runs` again as soon as A's are
 * started; B's run times (start to result) behind the backlog against alone, and where B's time
 * went, read from their histories. Each run's tasks carry its tenant as the fairness key
 * (CairnClient). The worker is tuned as docs/operations.md advises for a fleet shared by tenants:
 * 4 workflow task slots (fairness orders the server's backlog, not the tasks a worker holds) and a
 * 200 ms sticky schedule-to-start timeout (a run's later workflow tasks go to the worker's own sticky
 * queue, served first come first served; past the timeout they go back to the fair queue). Pass
 * `40 10s` for the SDK's defaults.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { join } from 'node:path';
// Installed with @temporalio/client (a CommonJS module: its namespace is the default export).
import protos from '@temporalio/proto';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import type { InboxPage } from '../servers/http/inbox.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { startTestEnvironment } from '../testing/test-environment.js';
import { testAgent } from '../test/fixtures/agents.js';
import { tenantsAgent } from './tenants-agent.js';

const fairnessMode = process.argv[2] === 'fairness';
const args = fairnessMode ? process.argv.slice(3) : process.argv.slice(2);
const waiting = Number(args[0] ?? (fairnessMode ? 1_000 : 300));
const reads = Number(args[1] ?? (fairnessMode ? 5 : 30));
// Fairness: the worker's workflow task slots (SDK default 40); tasks a worker holds are served first come first served.
const workflowSlots = Number(args[2] ?? 4);
const stickyTimeout = (args[3] ?? '200ms') as `${number}ms` | `${number}s`;

const env = await startTestEnvironment({
  agents: [testAgent, tenantsAgent],
  workflowsPath: join(PACKAGE_ROOT, 'bench', 'tenants-workflows.ts'),
  ...(fairnessMode && {
    worker: { maxConcurrentWorkflowTaskExecutions: workflowSlots, stickyQueueScheduleToStartTimeout: stickyTimeout },
  }),
});
const client = new CairnClient({ client: env.temporal, taskQueue: env.taskQueue });
const authorize = (r: Request) => ({ tenant: r.headers.get('x-tenant')! });
// Reads share a tenant's listing for a second (the default); `cold` lists afresh for every read.
const handler = createCairnHttpHandler({ client, agents: [testAgent], authorize });
const cold = createCairnHttpHandler({ client, agents: [testAgent], authorize, inboxReuseMs: 0 });
// Counts visibility listings (each page of a list is one call).
let listings = 0;
const service = client.temporal.workflowService;
const list = service.listWorkflowExecutions.bind(service);
service.listWorkflowExecutions = ((request: Parameters<typeof list>[0]) => (
  listings++, list(request)
)) as typeof service.listWorkflowExecutions;
const get = async (tenant: string, query: string, via = handler): Promise<{ ms: number; page: InboxPage }> => {
  const t = performance.now();
  const response = await via(new Request(`http://bench/inbox?${query}`, { headers: { 'x-tenant': tenant } }));
  if (response.status !== 200) throw new Error(`GET /inbox: ${response.status} ${await response.text()}`);
  const page = (await response.json()) as InboxPage;
  return { ms: performance.now() - t, page };
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

try {
  if (fairnessMode) await fairness(waiting, reads);
  else await inbox();
} finally {
  await env.close();
}

async function inbox(): Promise<void> {
  const tenant = `a${randomUUID().slice(0, 6)}`;
  const startedAt = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < waiting; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, waiting - i) }, async (_, j) => {
        const { model } = env.script([
          scriptStep.call('issue_refund', { orderId: `A-${i + j}`, amount: 80 }),
          scriptStep.text('Refunded.'),
        ]);
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
    for (let i = 0; i < reads; i++) ms.push((await get(tenant, 'limit=50', cold)).ms);
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
  // 10 reviewers with the page open, each polling every 2 s (never two polls of one page at once), for 20 s.
  const reviewers = async () => {
    const ms: number[] = [];
    const before = listings;
    const until = performance.now() + 20_000;
    await Promise.all(
      Array.from({ length: 10 }, async (_, r) => {
        await new Promise((ok) => setTimeout(ok, r * 200));
        while (performance.now() < until) {
          const { ms: took } = await get(tenant, 'limit=50');
          ms.push(took);
          await new Promise((ok) => setTimeout(ok, Math.max(0, 2_000 - took)));
        }
      }),
    );
    return { p50: pct(ms, 50), p90: pct(ms, 90), polls: ms.length, listings: listings - before };
  };
  const withWorker = await measure();
  const polling = await reviewers();
  env.worker.shutdown();
  while (env.worker.getState() !== 'STOPPED') await new Promise((r) => setTimeout(r, 100));
  const withoutWorker = await measure();
  const fmt = (m: typeof withWorker) =>
    `p50 ${m.p50.toFixed(0)} ms, p90 ${m.p90.toFixed(0)} ms; ${m.reachable} of ${waiting} runs reachable in ${m.pages} pages`;
  console.log(
    `Inbox of ${waiting} waiting runs (set up in ${setupS.toFixed(0)} s), GET /inbox?limit=50 x ${reads}, each a fresh listing (inboxReuseMs 0):`,
  );
  console.log(`  worker running: ${fmt(withWorker)}   (load ${loadavg()})`);
  console.log(`  worker stopped (a Query would wait for it): ${fmt(withoutWorker)}   (load ${loadavg()})`);
  console.log(
    `  10 reviewers polling every 2 s for 20 s (inboxReuseMs 1,000): ${polling.polls} polls, p50 ${polling.p50.toFixed(0)} ms, p90 ${polling.p90.toFixed(0)} ms, ${polling.listings} visibility listings   (load ${loadavg()})`,
  );
  for (const id of ids)
    await env.temporal.workflow
      .getHandle(id)
      .terminate('bench done')
      .catch(() => undefined);
}

/** Starts a run of `tenant` that calls the one-second tool once, then answers; resolves with its time from start to result (ms). */
async function oneRun(
  tenant: string,
  job: string,
  timed: boolean,
): Promise<{ workflowId: string; done: Promise<number> }> {
  const { model } = env.script([scriptStep.call('one_second', { job }), scriptStep.text('Done.')]);
  const t = performance.now();
  const run = await client.start({ agent: 'tenants', prompt: `Do ${job}.`, model, tenant });
  return {
    workflowId: run.workflowId,
    done: timed ? run.workflow.result().then(() => performance.now() - t) : Promise.resolve(0),
  };
}

async function fairness(backlog: number, runs: number): Promise<void> {
  const id = randomUUID().slice(0, 6);
  const [a, b] = [`a${id}`, `b${id}`];
  const timesOf = async (label: string) => {
    const started = await Promise.all(Array.from({ length: runs }, (_, i) => oneRun(b, `${label}-${i}`, true)));
    return Promise.all(started.map((s) => s.done));
  };
  const fmt = (ms: number[]) => `${ms.map((m) => (m / 1000).toFixed(1)).join(', ')} s`;
  const alone = await timesOf('alone');
  console.log(`Worker workflow task slots: ${workflowSlots}, sticky schedule-to-start timeout: ${stickyTimeout}`);
  console.log(`Tenant B alone, ${runs} runs: ${fmt(alone)}   (load ${loadavg()})`);
  const t = performance.now();
  let aDone = 0;
  const aRuns: Promise<unknown>[] = [];
  for (let i = 0; i < backlog; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, backlog - i) }, (_, j) => oneRun(a, `A-${i + j}`, false)),
    );
    for (const s of batch)
      aRuns.push(
        env.temporal.workflow
          .getHandle(s.workflowId)
          .result()
          .then(() => aDone++),
      );
  }
  const startedS = (performance.now() - t) / 1000;
  const atB = aDone;
  const behind = await timesOf('behind');
  const went = await whereTimeWent(b, runs);
  const bDoneS = (performance.now() - t) / 1000;
  console.log(
    `Tenant A started ${backlog} runs in ${startedS.toFixed(0)} s (${atB} finished by then); then B's ${runs} runs: ${fmt(behind)}   (load ${loadavg()})`,
  );
  const ratio = Math.max(...behind) / Math.max(...alone);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(
    `  B behind A / B alone: slowest ${ratio.toFixed(2)}x, median ${(median(behind) / median(alone)).toFixed(2)}x; A had ${aDone} of ${backlog} finished when B's last ended (${bDoneS.toFixed(0)} s after A's first start)`,
  );
  console.log(`  where B's time went behind A (median of its runs, from their histories): ${went}`);
  await Promise.all(aRuns);
  console.log(
    `  A's backlog drained ${((performance.now() - t) / 1000).toFixed(0)} s after its first start   (load ${loadavg()})`,
  );
}

/**
 * The median, over `tenant`'s newest `runs` runs, of the time their workflow tasks waited for a
 * worker (scheduled to started), spent in it (started to completed), and their activities took.
 */
async function whereTimeWent(tenant: string, runs: number): Promise<string> {
  const { EventType } = protos.temporal.api.enums.v1;
  const sums = { queued: [] as number[], inWorker: [] as number[], activities: [] as number[] };
  const ids: string[] = [];
  // Visibility lists the newest first: the runs just measured.
  for await (const info of env.temporal.workflow.list({ query: `CairnTenant = '${tenant}'` }))
    if (ids.push(info.workflowId) >= runs) break;
  for (const id of ids) {
    const { events } = await env.temporal.workflow.getHandle(id).fetchHistory();
    const at = (e: NonNullable<typeof events>[number]) =>
      Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
    let queued = 0;
    let inWorker = 0;
    let activities = 0;
    let mark = 0;
    let scheduled = 0;
    for (const e of events ?? []) {
      const t = at(e);
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) queued += t - mark;
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) inWorker += t - mark;
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) scheduled = t;
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) activities += t - scheduled;
      mark = t;
    }
    sums.queued.push(queued);
    sums.inWorker.push(inWorker);
    sums.activities.push(activities);
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!.toFixed(0);
  return `workflow tasks waiting for the worker ${med(sums.queued)} ms, in the worker ${med(sums.inWorker)} ms; activities ${med(sums.activities)} ms`;
}

function loadavg(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}
