/**
 * Issue 53's run page with a long run: how long a `turns`-turn run's page takes, in headless
 * Chromium, from navigation until its story is drawn (the end entry and the "Show earlier" control
 * in the page, the status saying the run ended). The page is the real one (servers/http/run-page.ts);
 * the server is a stand-in that answers its two data requests with a synthetic finished run — its
 * state, and its event stream as the handler sends it (SSE, one frame per event): per turn a
 * planner decision, a model turn with a tool call and usage, a decision to run it, its start and
 * its end with a result. A real 1,000-turn run takes minutes of a worker to make and nothing of
 * what is timed here depends on it. p50/p90 over `loads` loads, a fresh page each, after one warm-up.
 *
 * Not part of `npm run bench`: `npx tsx bench/run-page.ts [turns] [loads] [page module]`; the
 * third argument names another module exporting `runPage` (e.g. an older copy) to compare.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from '../test/support/chromium.js';
import { PAGE_HEADERS, runPage as currentPage, type RunPageConfig } from '../servers/http/run-page.js';

const [turnsArg = '1000', loadsArg = '7', pageModule] = process.argv.slice(2);
const turns = Number(turnsArg);
const loads = Number(loadsArg);
const runPage: (config: RunPageConfig) => string = pageModule
  ? ((await import(pathToFileURL(resolve(pageModule)).href)) as { runPage: typeof currentPage }).runPage
  : currentPage;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A finished run of `turns` model turns, each calling one tool, as its event stream tells it. */
function events(turns: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let at = Date.UTC(2026, 11, 7, 9);
  const add = (turn: number, event: Record<string, unknown>) => {
    at += 40;
    out.push({ at, turn, offset: out.length, ...event });
  };
  let seq = 0;
  add(0, { type: 'run_started', agent: 'orders', prompt: 'Go through every open order and settle each one.' });
  for (let t = 0; t < turns; t++) {
    const id = `${t + 1}.1`;
    add(t, { type: 'decision', seq: ++seq, action: 'model', detail: 'model turn with 3 tool(s)' });
    add(t, {
      type: 'model_turn',
      call: `model:${t + 1}:1`,
      text: `<think>Order A-${t} is next; look it up before deciding.</think>Looking up order A-${t} and what it says about its delivery.`,
      toolCalls: ['lookup_order'],
      usage: { inputTokens: 1200 + t, outputTokens: 40 },
    });
    add(t + 1, { type: 'decision', seq: ++seq, action: 'run_tools', detail: 'lookup_order' });
    add(t + 1, { type: 'tool_start', toolCallId: id, name: 'lookup_order', args: { orderId: `A-${t}` } });
    add(t + 1, {
      type: 'tool_end',
      toolCallId: id,
      name: 'lookup_order',
      result: {
        status: 'ok',
        result: { id: `A-${t}`, status: 'shipped', carrier: 'Lyon hub', items: [{ sku: 'SKU-1', qty: 2 }] },
        telemetry: { durationMs: 12, attempt: 1 },
      },
    });
  }
  add(turns, { type: 'finish', answer: `Settled ${turns} orders.`, reason: null, toolCalls: turns });
  return out;
}

const stream = events(turns);
const body = `${stream.map((e) => `id: ${e.offset}\ndata: ${JSON.stringify(e)}\n\n`).join('')}event: end\ndata: {}\n\n`;
const state = {
  agent: 'orders',
  phase: 'done',
  turn: turns,
  outcome: { status: 'answered' },
  budget: { usage: { inputTokens: 1_700_000, outputTokens: 40_000 } },
};
const html = runPage({ temporalUiUrl: 'http://localhost:8233', namespace: 'default' });

const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path.endsWith('/page')) response.writeHead(200, PAGE_HEADERS).end(html);
  else if (path.endsWith('/events')) {
    // The page asks again after the end only if the stream broke: a finished run read past its end.
    if (request.headers['last-event-id'] !== undefined) response.writeHead(204).end();
    else response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).end(body);
  } else if (path.startsWith('/runs/'))
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ runId: 'bench-long-run', status: 'COMPLETED', state }));
  else response.writeHead(404).end();
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs/bench-long-run/page`;

/** The page's globals, as the function run in it sees them (this project's types have no DOM). */
interface PageGlobal {
  performance: { now(): number };
  document: {
    querySelector(selector: string): { textContent: string | null } | null;
    querySelectorAll(selector: string): { length: number };
  };
}

const browser = await launchChromium();
const times: number[] = [];
let drawn = 0;
try {
  for (let i = 0; i <= loads; i++) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
    await page.goto(url);
    // Drawn: the end is in the story and the page says the run ended. Time since navigation began.
    const done = await page.waitForFunction(
      () => {
        const g = globalThis as unknown as PageGlobal;
        const ended = g.document.querySelector('#status')?.textContent === 'The run has ended.';
        return ended && g.document.querySelector('#timeline li.finish') ? g.performance.now() : null;
      },
      undefined,
      { polling: 'raf', timeout: 60_000 },
    );
    const ms = (await done.jsonValue()) as number;
    drawn = await page.evaluate(
      () => (globalThis as unknown as PageGlobal).document.querySelectorAll('#timeline > li').length,
    );
    if (i > 0) times.push(ms); // the first load warms the browser up
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}

console.log(
  `run page, ${turns} turns (${stream.length} events, ${(body.length / 1e6).toFixed(1)} MB of stream), ${drawn} entries drawn; ` +
    `navigation to story drawn over ${loads} loads: p50 ${percentile(times, 50).toFixed(0)} ms, p90 ${percentile(times, 90).toFixed(0)} ms ` +
    `(min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}); load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);
