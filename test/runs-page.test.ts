/**
 * The runs page (`GET /runs.html`, listing `GET /runs`) in headless Chromium, against runs on a
 * real dev server: an answered run, one waiting on a question and one failed list with their
 * summaries (request, phase, outcome, turns, tokens, cost) read from visibility, and chart by
 * status, phase and start time (the newest hour holds them all); a filter narrows
 * the list; paging walks it; another tenant's runs never show; a request with markup stays text.
 * The screenshot goes to a temp file (docs/images/runs-page.png with CAIRN_DOCS_SCREENSHOTS=1).
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { HttpError } from '../servers/http/http-error.js';
import type { RunRow } from '../servers/http/run-listing.js';
import type { RunsResponse } from '../servers/http/run-listing-endpoint.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { launchChromium } from './support/chromium.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { awaiting, waitFor } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let served: Served;
let browser: Browser;
let model = '';
const WAIT = { timeout: 60_000 };
const TOKENS: Record<string, string> = { [`acme-${randomUUID()}`]: 'acme', [`globex-${randomUUID()}`]: 'globex' };
const tokenOf = (tenant: string) => Object.keys(TOKENS).find((t) => TOKENS[t] === tenant)!;
const runs: Record<'answered' | 'asking' | 'failed' | 'markup' | 'globex', string> = {
  answered: '',
  asking: '',
  failed: '',
  markup: '',
  globex: '',
};

beforeAll(async () => {
  [w, browser] = await Promise.all([startTestWorker(), launchChromium()]);
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
      authorize: (request) => {
        const tenant = TOKENS[/^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? ''];
        if (!tenant) throw new HttpError(401, 'unauthorized', 'Send your token.');
        return { tenant, user: `${tenant}-user` };
      },
    }),
  );
  const start = async (tenant: string, script: Parameters<TestWorker['script']>[0], prompt: string, as?: string) => {
    ({ model } = w.script(script));
    if (as) model = as;
    const response = await fetch(`${served.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenOf(tenant)}` },
      body: JSON.stringify({ agent: 'test', prompt, threadId: `runs-page-${randomUUID()}` }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { runId: string }).runId;
  };
  runs.answered = await start(
    'acme',
    [
      {
        kind: 'respond',
        calls: [{ name: 'lookup_order', arguments: { orderId: 'A-7' } }],
        usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0021 },
      },
      { kind: 'respond', text: 'A-7 is on its way.', usage: { inputTokens: 200, outputTokens: 12, costUsd: 0.003 } },
    ],
    'Where is order A-7?',
  );
  runs.asking = await start(
    'acme',
    [scriptStep.call('schedule_redelivery', { orderId: 'A-3' }), scriptStep.text('Booked.')],
    'Redeliver A-3.',
  );
  runs.failed = await start('acme', [], 'Refund B-2.', 'foo:bar'); // an unknown provider: model_misconfigured
  runs.markup = await start(
    'acme',
    [scriptStep.text('Done.')],
    'Refund <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> please',
  );
  runs.globex = await start('globex', [scriptStep.text('Hello, globex.')], 'Globex secret request.');
  const handle = (id: string) => w.client.workflow.getHandle(id);
  await Promise.all([
    handle(runs.answered).result(),
    handle(runs.markup).result(),
    handle(runs.globex).result(),
    handle(runs.failed)
      .result()
      .catch(() => undefined),
    awaiting(handle(runs.asking), 'awaiting_clarification'),
  ]);
  // Visibility follows the runs a moment later: wait until it lists all of acme's as they now are.
  await waitFor(async () => {
    const { items } = await list('acme');
    const ended = items.filter((r) => r.endedAt !== undefined).length;
    const asking = items.find((r) => r.runId === runs.asking);
    return items.length === 4 && ended === 3 && asking?.phase === 'awaiting_clarification' && asking.request
      ? true
      : undefined;
  }, 'visibility to list the runs');
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await served?.close();
  await w?.stop();
});

async function list(tenant: string, query = ''): Promise<RunsResponse> {
  const response = await fetch(`${served.url}/runs?${query}`, {
    headers: { authorization: `Bearer ${tokenOf(tenant)}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RunsResponse;
}

async function signedIn(tenant: string, query = '', width = 1100): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  await page.goto(`${served.url}/runs.html${query}`);
  await page.locator('#token').waitFor({ state: 'visible', ...WAIT });
  await page.locator('#token').fill(tokenOf(tenant));
  await page.locator('#save-token').click();
  return page;
}

const rowOf = (page: Page, runId: string) => page.locator(`#rows tr[data-run="${runId}"]`);

describe('the runs page', () => {
  it('lists the runs with their summaries from visibility, links each to its page, and charts them', async () => {
    const { items, counts } = await list('acme', 'counts=1');
    const byId = new Map<string, RunRow>(items.map((r) => [r.runId, r]));
    expect(byId.get(runs.answered)).toMatchObject({
      agent: 'test',
      status: 'completed',
      phase: 'done',
      outcome: 'answered',
      request: 'Where is order A-7?',
      user: 'acme-user',
      turns: 2,
      tokensIn: 320,
      tokensOut: 42,
      cost: 0.0051,
    });
    expect(byId.get(runs.asking)).toMatchObject({
      status: 'running',
      phase: 'awaiting_clarification',
      request: 'Redeliver A-3.',
      waitingSince: expect.any(String),
    });
    expect(byId.get(runs.asking)!.outcome).toBeUndefined();
    // Its model could not be used: the run failed before it finished a turn; its request is the one its start memo holds.
    expect(byId.get(runs.failed)).toMatchObject({ status: 'failed', outcome: 'failed', request: 'Refund B-2.' });
    expect(counts).toMatchObject({
      byStatus: { running: 1, completed: 2, failed: 1 },
      byPhase: { awaiting_clarification: 1 },
    });
    // Over time: the last 12 hours by the hour; the runs started a moment ago, all in the newest hour.
    const overTime = counts!.overTime;
    expect(overTime.bucketMs).toBe(3_600_000);
    expect(overTime.buckets).toHaveLength(12);
    expect(overTime.buckets.at(-1)!.byStatus).toEqual({ running: 1, completed: 2, failed: 1 });
    expect(overTime.buckets.slice(0, -1).every((b) => Object.keys(b.byStatus).length === 0)).toBe(true);
    // A range names the window: the failed runs of the last 10 minutes, per minute.
    // By the server's clock (a run's start), never this process's: under a fake clock the two differ.
    const started = (await w.client.workflow.getHandle(runs.failed).describe()).startTime.getTime();
    const from = new Date(started - 10 * 60_000).toISOString();
    const failedLately = (await list('acme', `counts=1&status=failed&from=${encodeURIComponent(from)}`)).counts!
      .overTime;
    expect(failedLately.bucketMs).toBe(60_000);
    expect(failedLately.buckets.map((b) => b.byStatus.failed ?? 0).reduce((a, b) => a + b)).toBe(1);
    expect(failedLately.buckets.flatMap((b) => Object.keys(b.byStatus).filter((k) => k !== 'failed'))).toEqual([]);

    // The summary each run carries in its memo stays a few hundred bytes (the request is cut to 200 characters).
    const memo = (await w.client.workflow.getHandle(runs.markup).describe()).memo?.cairnRun;
    expect(JSON.stringify(memo).length).toBeLessThan(400);

    const page = await signedIn('acme');
    const answered = rowOf(page, runs.answered);
    await answered.waitFor(WAIT);
    expect(await page.locator('#rows tr').count()).toBe(4);
    const text = (await answered.textContent()) ?? '';
    expect(text).toContain('Where is order A-7?');
    expect(text).toContain('answered');
    expect(text).toContain('320 / 42');
    expect(text).toContain('0.0051');
    // Ages are the browser's clock against the server's times: days apart under a fake clock.
    expect(text).toMatch(/ended \d+ (s|min|h|d) ago/);
    expect(await rowOf(page, runs.asking).textContent()).toMatch(
      /awaiting clarification.*waiting since \d+ (s|min|h|d) ago/,
    );
    expect(await rowOf(page, runs.failed).textContent()).toContain('failed');
    expect(await page.locator('#charts [role=listitem][aria-label="completed: 2"]').count()).toBe(1);
    expect(await page.locator('#charts [role=listitem][aria-label="awaiting clarification: 1"]').count()).toBe(1);
    const bars = page.locator('#over-time .bars [role=listitem]');
    expect(await bars.count()).toBe(12);
    expect(await bars.last().getAttribute('aria-label')).toMatch(/ to now: 1 running, 2 completed, 1 failed$/);
    expect(await bars.first().getAttribute('aria-label')).toMatch(/: none$/);
    // The newest bar is the tallest, its statuses stacked as tall as their counts.
    const heights = await bars.evaluateAll((els) =>
      els.map((e) => (e as unknown as { offsetHeight: number }).offsetHeight),
    );
    expect(heights.at(-1)).toBeGreaterThan(50);
    expect(heights.slice(0, -1).every((h) => h === 0)).toBe(true);
    const segments = await bars
      .last()
      .locator('.fill')
      .evaluateAll((els) => els.map((e) => [e.className, (e as unknown as { offsetHeight: number }).offsetHeight]));
    expect(segments.map(([name]) => name)).toEqual(['fill running', 'fill completed', 'fill failed']);
    expect(Math.abs((segments[1]![1] as number) - 2 * (segments[0]![1] as number))).toBeLessThanOrEqual(2);
    // docs/images/runs-page.png is this picture: CAIRN_DOCS_SCREENSHOTS=1 writes it again; else a temp file.
    const shot = process.env.CAIRN_DOCS_SCREENSHOTS
      ? join(PACKAGE_ROOT, 'docs', 'images', 'runs-page.png')
      : join(tmpdir(), `cairn-runs-page-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });

    // By keyboard: the request links to the run's page.
    await answered.locator('a').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${served.url}/runs/${encodeURIComponent(runs.answered)}/page`, WAIT);
    await page.locator('#timeline li.finish', { hasText: 'A-7 is on its way.' }).waitFor(WAIT);
    // And back from the run page to the runs.
    await page.locator('nav a', { hasText: 'Runs' }).click();
    await rowOf(page, runs.asking).waitFor(WAIT);
    await page.close();
  }, 120_000);

  it('narrows the list by a filter, kept in the address', async () => {
    expect((await list('acme', 'phase=awaiting_clarification')).items.map((r) => r.runId)).toEqual([runs.asking]);
    expect((await list('acme', 'outcome=answered')).items.map((r) => r.runId).sort()).toEqual(
      [runs.answered, runs.markup].sort(),
    );
    expect((await list('acme', 'status=failed')).items.map((r) => r.runId)).toEqual([runs.failed]);
    expect((await list('acme', 'user=nobody')).items).toEqual([]);
    expect(
      (await list('acme', `from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).items,
    ).toEqual([]);
    const bad = await fetch(`${served.url}/runs?phase=${encodeURIComponent("x' OR 1=1")}`, {
      headers: { authorization: `Bearer ${tokenOf('acme')}` },
    });
    expect(bad.status).toBe(400);

    const page = await signedIn('acme');
    await rowOf(page, runs.answered).waitFor(WAIT);
    await page.locator('#f-outcome').selectOption('answered');
    await page.locator('#filters button[type=submit]').press('Enter'); // by keyboard
    await rowOf(page, runs.asking).waitFor({ state: 'detached', ...WAIT });
    expect(await page.locator('#rows tr').count()).toBe(2);
    expect(page.url()).toContain('outcome=answered');
    // The filtered address, opened afresh, lists the same.
    await page.reload();
    await rowOf(page, runs.markup).waitFor(WAIT);
    expect(await page.locator('#f-outcome').inputValue()).toBe('answered');
    expect(await page.locator('#rows tr').count()).toBe(2);
    await page.close();
  }, 120_000);

  it('pages through the runs with the listing cursor', async () => {
    const first = await list('acme', 'limit=3');
    expect(first.items).toHaveLength(3);
    expect(first.nextCursor).toBeDefined();
    const second = await list('acme', `limit=3&cursor=${first.nextCursor}`);
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    expect(new Set([...first.items, ...second.items].map((r) => r.runId)).size).toBe(4);
    // Filtered on the memo (outcome), a page may end inside one of visibility's: nothing lost, nothing twice.
    const a = await list('acme', 'limit=1&outcome=answered');
    const b = await list('acme', `limit=1&outcome=answered&cursor=${a.nextCursor}`);
    expect([...a.items, ...b.items].map((r) => r.runId).sort()).toEqual([runs.answered, runs.markup].sort());

    const page = await signedIn('acme', '?limit=2');
    await page.locator('#rows tr').nth(1).waitFor(WAIT);
    const seen = await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    await page.locator('#next').click();
    await page.locator('#page', { hasText: 'Page 2' }).waitFor(WAIT);
    await page.locator(`#rows tr[data-run="${seen[0]}"]`).waitFor({ state: 'detached', ...WAIT });
    const later = await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    expect(later).toHaveLength(2);
    expect(new Set([...seen, ...later]).size).toBe(4);
    expect(await page.locator('#next').isDisabled()).toBe(true);
    await page.locator('#prev').click();
    await page.locator(`#rows tr[data-run="${seen[0]}"]`).waitFor(WAIT);
    await page.close();
  }, 120_000);

  it("never shows another tenant's runs, and keeps markup in a request as text, at a phone's width", async () => {
    expect((await list('globex')).items.map((r) => r.runId)).toEqual([runs.globex]);
    expect((await list('acme')).items.map((r) => r.runId)).not.toContain(runs.globex);
    const unauthorized = await fetch(`${served.url}/runs`);
    expect(unauthorized.status).toBe(401);

    const page = await signedIn('acme', '', 390);
    const markup = rowOf(page, runs.markup);
    await markup.waitFor(WAIT);
    expect(await markup.locator('a').textContent()).toBe(
      'Refund <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> please',
    );
    expect(await page.locator('#rows script, #rows img').count()).toBe(0);
    await page.locator('#over-time .bars').waitFor(WAIT); // the runs over time, at a phone's width too
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('body').textContent()).not.toContain('Globex secret request.');
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      ),
    ).toBeLessThanOrEqual(390);
    await page.close();
  }, 120_000);
});
