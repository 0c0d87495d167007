/**
 * Issue 53's runs page: how long `GET /runs` (the page's listing) answers with many runs, on the
 * embedded dev server (SQLite visibility), with no worker at all — so a Query per run would hang,
 * and the listing is visibility alone. Seeds `closed` terminated runs and `open` runs waiting on a
 * person of one tenant (plus as many of another tenant), each with the memo a run publishes
 * (`cairnRun`, `cairnEnded` / `cairnWaiting`), then reads: the first page, the first page with the
 * charts' counts (by status, by phase, and over time: the last 12 hours, or a week's range, by
 * bucket), page 2, a phase filter, an outcome filter (applied on the page), p50/p90 over `reads`
 * each, and what `counts=1` adds to the first page. Temporal limits visibility calls to 10 a
 * second per namespace by default (`frontend.namespaceRPS.visibility`, burst 10); reads back to
 * back exceed it, and the SDK retries a refused call about a second later: `VISIBILITY_RPS=<n>`
 * starts the server with that limit instead. Not part of `npm run bench`:
 * `[VISIBILITY_RPS=1000] npx tsx bench/runs-page.ts [closed] [open] [reads]`.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { CairnClient } from '../client/cairn-client.js';
import { FAST_DEV_SERVER_CONFIG, startEmbeddedServer } from '../runtime/embedded-server.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { MAX_COUNT_CALLS } from '../servers/http/run-listing-endpoint.js';
import { CairnAgent, CairnPhase, CairnTenant, WAITING_MEMO } from '../workflows/contract/index.js';
import { ENDED_MEMO } from '../workflows/contract/ended-memo.js';
import { RUN_SUMMARY_MEMO } from '../workflows/contract/run-summary-memo.js';

const [closed = 2_000, open = 200, reads = 30] = process.argv.slice(2).map(Number);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const visibilityRps = process.env.VISIBILITY_RPS ? Number(process.env.VISIBILITY_RPS) : undefined;
const server = await startEmbeddedServer({
  log: () => undefined,
  ...(visibilityRps && {
    dynamicConfig: { ...FAST_DEV_SERVER_CONFIG, 'frontend.namespaceRPS.visibility': visibilityRps },
  }),
});
const temporal = new Client({ connection: await Connection.connect({ address: server.address }) });
const taskQueue = `bench-runs-page-${randomUUID().slice(0, 8)}`;
const client = new CairnClient({ client: temporal, taskQueue });

/** Starts a run nobody works (no worker polls the queue) with the memo and search attributes a run publishes. */
async function seed(tenant: string, i: number, waiting: boolean): Promise<void> {
  const workflowId = `bench-${tenant}-${waiting ? 'open' : 'closed'}-${i}`;
  const request = `Refund order A-${i}, please: it arrived broken and the box was wet.`;
  const summary = {
    v: 1,
    request,
    phase: waiting ? 'awaiting_review' : 'done',
    turns: 3,
    tokensIn: 1200,
    tokensOut: 240,
    cost: 0.0123,
  };
  const handle = await temporal.workflow.start('agentRun', {
    taskQueue,
    workflowId,
    args: [{ agent: 'test', prompt: request }],
    memo: waiting
      ? {
          [RUN_SUMMARY_MEMO]: { ...summary, waitingSince: Date.now() },
          [WAITING_MEMO]: {
            v: 1,
            agent: 'test',
            phase: 'awaiting_review',
            since: Date.now(),
            request,
            exchange: [],
            clarification: null,
            reviews: [],
          },
        }
      : {
          [RUN_SUMMARY_MEMO]: { ...summary, endedAt: Date.now() },
          [ENDED_MEMO]: { v: 1, agent: 'test', status: 'completed', turn: 3, toolCalls: 2 },
        },
    typedSearchAttributes: [
      { key: CairnAgent, value: 'test' },
      { key: CairnPhase, value: waiting ? 'awaiting_review' : 'done' },
      { key: CairnTenant, value: tenant },
    ],
  });
  if (!waiting) await handle.terminate('bench: a closed run');
}

async function inBatches(count: number, make: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => make(i + j)));
}

const seeding = Date.now();
for (const tenant of ['acme', 'globex']) {
  await inBatches(closed, (i) => seed(tenant, i, false));
  await inBatches(open, (i) => seed(tenant, i, true));
}
const total = 2 * (closed + open);
for (;;) {
  const { count } = await temporal.workflow.count(`TaskQueue = '${taskQueue}'`);
  if (count >= total) break;
  await new Promise((r) => setTimeout(r, 500));
}
console.log(
  `seeded ${total} runs (${closed} closed + ${open} waiting per tenant, 2 tenants) in ${Date.now() - seeding} ms`,
);

const handler = createCairnHttpHandler({ client, authorize: () => ({ tenant: 'acme' }) });
const get = async (query: string) => {
  const started = performance.now();
  const response = await handler(new Request(`http://bench/runs?${query}`));
  const body = (await response.json()) as { items: unknown[]; nextCursor?: string };
  if (response.status !== 200) throw new Error(`GET /runs?${query}: ${response.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, body };
};
const { body: first } = await get('limit=25');
const cases: [string, string][] = [
  ['first page (25)', 'limit=25'],
  ['first page + counts', 'limit=25&counts=1'],
  [
    'first page + counts, a week (7 d)',
    `limit=25&counts=1&from=${new Date(Date.now() - 7 * 86_400_000).toISOString()}`,
  ],
  ['page 2', `limit=25&cursor=${first.nextCursor}`],
  ['phase=awaiting_review', 'limit=25&phase=awaiting_review'],
  ['status=terminated', 'limit=25&status=terminated'],
  ['outcome=terminated (on the page)', 'limit=25&outcome=terminated'],
];
console.log(
  `uptime load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(
      ' ',
    )}; ${reads} reads each, sequential; visibility limit ${visibilityRps ?? FAST_DEV_SERVER_CONFIG['frontend.namespaceRPS.visibility']}/s`,
);
const timesOf = new Map<string, number[]>();
for (const [name, query] of cases) {
  await get(query); // warm
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < reads; i++) {
    const { ms, body } = await get(query);
    times.push(ms);
    rows = body.items.length;
  }
  timesOf.set(name, times);
  console.log(
    `${name.padEnd(34)} p50 ${percentile(times, 50).toFixed(0).padStart(5)} ms  p90 ${percentile(times, 90).toFixed(0).padStart(5)} ms  (${rows} rows)`,
  );
}
// What the charts cost: the counts go at once, beside the page's list.
const plain = timesOf.get('first page (25)')!;
for (const [name, window] of [
  ['first page + counts', 'the last 12 h by the hour'],
  ['first page + counts, a week (7 d)', 'a week by the day'],
]) {
  const counted = timesOf.get(name!)!;
  const extra = (p: number) => (percentile(counted, p) - percentile(plain, p)).toFixed(0);
  console.log(
    `counts=1 adds (over time: ${window}): p50 +${extra(50)} ms, p90 +${extra(90)} ms (at most ${MAX_COUNT_CALLS} visibility counts a read)`,
  );
}
console.log(
  `uptime load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await server.env.teardown();
process.exit(0);
