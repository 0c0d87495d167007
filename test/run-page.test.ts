/**
 * The run page (`GET /runs/:id/page`) in headless Chromium (test/support/chromium.ts: no browser
 * download), against runs on a real dev server: a run with a failed call, its repair and a review
 * reads as its story while it waits; the review is given from the page (by keyboard) and the run
 * goes on to its answer, live; the finished run reads the same from history after a reload; markup
 * a model or a tool wrote shows as text and never runs; another tenant's run is not found; a long
 * story (a stand-in stream) shows its newest page first and earlier pages on request, each step
 * linked to the Temporal UI and a model's reasoning folded. The
 * screenshot of the story goes to a temp file (docs/images/run-page.png with CAIRN_DOCS_SCREENSHOTS=1).
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { HttpError } from '../servers/http/http-error.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { launchChromium } from './support/chromium.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let open: Served;
let tenants: Served;
let browser: Browser;
let model = '';
const WAIT = { timeout: 60_000 };
const TOKENS: Record<string, string> = { [`acme-${randomUUID()}`]: 'acme', [`globex-${randomUUID()}`]: 'globex' };
const tokenOf = (tenant: string) => Object.keys(TOKENS).find((t) => TOKENS[t] === tenant)!;

beforeAll(async () => {
  [w, browser] = await Promise.all([startTestWorker(), launchChromium()]);
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  const startOptions = () => ({ model, temporal: { workflowExecutionTimeout: '3m' } });
  [open, tenants] = await Promise.all([
    serve(
      createCairnHttpHandler({ client, agents: [testAgent], temporalUiUrl: 'http://localhost:8233', startOptions }),
    ),
    serve(
      createCairnHttpHandler({
        client,
        agents: [testAgent],
        startOptions,
        authorize: (request) => {
          const tenant = TOKENS[/^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? ''];
          if (!tenant) throw new HttpError(401, 'unauthorized', 'Send your token.');
          return { tenant };
        },
      }),
    ),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([open?.close(), tenants?.close()]);
  await w?.stop();
});

async function start(
  served: Served,
  script: Parameters<TestWorker['script']>[0],
  prompt: string,
  token?: string,
): Promise<string> {
  ({ model } = w.script(script));
  const response = await fetch(`${served.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ agent: 'test', prompt, threadId: `run-page-${randomUUID()}` }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

const pageOf = (served: Served, runId: string) => `${served.url}/runs/${encodeURIComponent(runId)}/page`;
const handle = (runId: string) => w.client.workflow.getHandle(runId);

/** The page's globals, as page functions see them (this project's types have no DOM). */
interface PageGlobal {
  __pwned?: unknown;
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): { length: number };
  };
}
const inPage = (page: Page) => ({
  pwned: () => page.evaluate(() => (globalThis as unknown as PageGlobal).__pwned),
  count: (selector: string) =>
    page.evaluate((s) => (globalThis as unknown as PageGlobal).document.querySelectorAll(s).length, selector),
  width: () => page.evaluate(() => (globalThis as unknown as PageGlobal).document.documentElement.scrollWidth),
});

/** What the story must say of the run with a failed call, its repair, a review and an answer. */
async function expectStory(page: Page): Promise<void> {
  const timeline = page.locator('#timeline');
  const failed = timeline.locator('li.tool.failed', { hasText: 'lookup_order' });
  await failed.waitFor(WAIT);
  expect(await failed.textContent()).toContain('invalid_arguments');
  expect(await failed.textContent()).toContain('"orderId": "B-7"'); // the arguments the model sent
  expect(await failed.locator('.hint').textContent()).toContain('Hint (');
  await timeline.locator('li.decision', { hasText: 'repair' }).first().waitFor(WAIT);
  expect(await timeline.locator('li.decision', { hasText: 'repair' }).first().textContent()).toContain(
    'model repairs the call, restricted to lookup_order',
  );
  expect(await timeline.locator('li.tool:not(.failed)', { hasText: 'lookup_order' }).textContent()).toContain('"A-7"');
  expect(await timeline.locator('li.request').textContent()).toContain('Refund order A-7, please.');
  // The back-off: the rate-limited call, the decision with when it ends, the call again.
  expect(await timeline.locator('li.tool.failed', { hasText: 'track_shipment' }).first().textContent()).toContain(
    'rate_limited',
  );
  expect(await timeline.locator('li.decision', { hasText: 'back off' }).first().textContent()).toMatch(
    /until .*back-off for track_shipment: rate limited/,
  );
  expect(await timeline.locator('li.tool:not(.failed)', { hasText: 'track_shipment' }).textContent()).toContain(
    'Lyon hub',
  );
  expect(await timeline.locator('li.model').first().textContent()).toContain('120 in · 30 out · cost 0.0021');
}

describe('the run page', () => {
  it('tells a run with a failed call, its repair and a review as its story; a review given from the page lands, live', async () => {
    const runId = await start(
      open,
      [
        {
          kind: 'respond',
          text: 'Looking the order up.',
          calls: [{ name: 'lookup_order', arguments: { orderId: 'B-7' } }],
          usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0021 },
        },
        scriptStep.call('lookup_order', { orderId: 'A-7' }),
        scriptStep.call('track_shipment', { orderId: 'A-7' }), // rate-limited twice: backed off, then fine
        scriptStep.call('issue_refund', { orderId: 'A-7', amount: 80 }),
        scriptStep.text('Refunded 80 on order A-7.'),
      ],
      'Refund order A-7, please.',
    );
    await awaiting(handle(runId), 'awaiting_review');
    const refundsBefore = calls.issue_refund ?? 0;

    // From the inbox: its card links to the run's page.
    const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
    await page.goto(`${open.url}/`);
    await page.locator('.card.review', { hasText: runId }).locator('a', { hasText: 'Run page' }).click();
    await page.waitForURL(pageOf(open, runId), WAIT);
    await expectStory(page);
    const review = page.locator('#waiting .card.review', { hasText: 'issue_refund' });
    await review.waitFor(WAIT);
    expect(await page.locator('#timeline li.decision', { hasText: 'review' }).count()).toBeGreaterThan(0);
    expect(await page.locator('#meta a', { hasText: 'Temporal UI' }).getAttribute('href')).toBe(
      `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(runId)}`,
    );

    // By keyboard: the Accept button takes focus and Enter decides.
    await review.locator('button', { hasText: 'Accept' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.notice', { hasText: 'Accepted the call to issue_refund' }).waitFor(WAIT);
    // Live: the rest of the run arrives on the open page.
    const end = page.locator('#timeline li.finish');
    await end.waitFor(WAIT);
    expect(await end.textContent()).toContain('Refunded 80 on order A-7.');
    expect(await page.locator('#timeline li.review', { hasText: 'issue_refund' }).textContent()).toContain(
      'Decision: accepted',
    );
    await page.locator('#outcome', { hasText: 'answered' }).waitFor(WAIT);
    await review.waitFor({ state: 'detached', ...WAIT });
    expect(await handle(runId).result()).toMatchObject({ answer: 'Refunded 80 on order A-7.' });
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    // The time bar says where the time went, in words too.
    expect(await page.locator('#bar').getAttribute('aria-label')).toMatch(/waiting on a person \d/);

    // The finished run, read afresh from history, tells the same story.
    await page.reload();
    await expectStory(page);
    expect(await page.locator('#timeline li.finish').textContent()).toContain('Refunded 80 on order A-7.');
    await page.locator('#status', { hasText: 'The run has ended.' }).waitFor(WAIT);
    // docs/images/run-page.png is this picture: CAIRN_DOCS_SCREENSHOTS=1 writes it again; else a temp file.
    const shot = process.env.CAIRN_DOCS_SCREENSHOTS
      ? join(PACKAGE_ROOT, 'docs', 'images', 'run-page.png')
      : join(tmpdir(), `cairn-run-page-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });

    // Readable at a phone's width: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await inPage(page).width()).toBeLessThanOrEqual(390);
    await page.close();
  }, 180_000);

  it('takes an answer to its question from the page', async () => {
    const runId = await start(
      open,
      [
        scriptStep.call('schedule_redelivery', { orderId: 'A-3' }),
        scriptStep.call('schedule_redelivery', { orderId: 'A-3', window: 'morning' }),
        scriptStep.text('Redelivery booked for the morning.'),
      ],
      'Redeliver A-3.',
    );
    await awaiting(handle(runId), 'awaiting_clarification');
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } }); // a phone
    await page.goto(pageOf(open, runId));
    const asked = page.locator('#waiting .card.question');
    await asked.waitFor(WAIT);
    expect(await asked.textContent()).toContain('Which delivery window suits you: morning or afternoon?');
    await page.locator('#timeline li.question', { hasText: 'Which delivery window' }).waitFor(WAIT);
    await asked.locator('textarea').fill('morning');
    await asked.locator('button', { hasText: 'Answer' }).click();
    await page.locator('#timeline li.finish', { hasText: 'Redelivery booked for the morning.' }).waitFor(WAIT);
    expect(await page.locator('#timeline li.question').textContent()).toContain('answered: morning');
    await asked.waitFor({ state: 'detached', ...WAIT });
    expect(await inPage(page).width()).toBeLessThanOrEqual(390);
    await page.close();
  }, 120_000);

  it('shows markup a model or a tool wrote as text, and never runs it', async () => {
    const img = '<img src=x onerror="window.__pwned=1">';
    const runId = await start(
      open,
      [
        scriptStep.call('issue_refund', { orderId: img, amount: 5 }, '<script>window.__pwned=2</script>On it.'),
        scriptStep.text(`Done <img src=x onerror="window.__pwned=3"> <script>window.__pwned=4</script>`),
      ],
      `Refund <script>window.__pwned=5</script> please`,
    );
    await handle(runId).result();
    const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
    await page.goto(pageOf(open, runId));
    await page.locator('#timeline li.finish').waitFor(WAIT);
    const result = page.locator('#timeline li.tool', { hasText: 'issue_refund' });
    expect(await result.textContent()).toContain('<img src=x onerror=\\"window.__pwned=1\\">');
    expect(await page.locator('#timeline li.finish').textContent()).toContain('Done <img src=x onerror=');
    expect(await page.locator('#timeline li.request').textContent()).toContain('<script>window.__pwned=5</script>');
    expect(await inPage(page).count('#timeline img, #timeline script')).toBe(0);
    expect(await inPage(page).pwned()).toBeUndefined();
    await page.close();
  }, 120_000);

  it('resumes a dropped stream after the last event it had (Last-Event-ID), telling nothing twice', async () => {
    const runId = await start(
      open,
      [scriptStep.call('lookup_order', { orderId: 'A-9' }), scriptStep.text('A-9 has shipped.')],
      'Where is A-9?',
    );
    await handle(runId).result();
    const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
    const resumedFrom: (string | null)[] = [];
    // The first stream is cut after three events, as a dropped connection would; the page asks again.
    await page.route('**/events', async (route) => {
      if (resumedFrom.push(route.request().headers()['last-event-id'] ?? null) > 1) return route.continue();
      const whole = await (await route.fetch()).text();
      const frames = whole.split('\n\n').filter((f) => f.includes('data:') && !f.includes('event: end'));
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: `${frames.slice(0, 3).join('\n\n')}\n\n`,
      });
    });
    await page.goto(pageOf(open, runId));
    await page.locator('#timeline li.finish', { hasText: 'A-9 has shipped.' }).waitFor(WAIT);
    expect(resumedFrom).toEqual([null, '2']);
    for (const kind of ['request', 'finish', 'tool'])
      expect(await page.locator(`#timeline li.${kind}`).count()).toBe(1);
    await page.close();
  }, 120_000);

  it('shows a long story newest page first, earlier pages by keyboard; links each step to the Temporal UI; folds reasoning', async () => {
    const runId = `long-run-${randomUUID()}`;
    const turns = 130; // the request, 130 model turns, 130 tool calls, the end: 262 entries
    const events: Record<string, unknown>[] = [];
    const add = (turn: number, event: Record<string, unknown>) =>
      events.push({ at: 1_800_000_000_000 + events.length * 50, turn, offset: events.length, ...event });
    add(0, { type: 'run_started', agent: 'test', prompt: 'Settle every order.' });
    for (let t = 0; t < turns; t++) {
      add(t, {
        type: 'model_turn',
        call: `model:${t + 1}:1`,
        text: `<think>Order A-${t} next <img src=x onerror="window.__pwned=6"></think>Looking up A-${t}.`,
        toolCalls: ['lookup_order'],
      });
      add(t + 1, { type: 'tool_start', toolCallId: `${t + 1}.1`, name: 'lookup_order', args: { orderId: `A-${t}` } });
      add(t + 1, {
        type: 'tool_end',
        toolCallId: `${t + 1}.1`,
        name: 'lookup_order',
        result: { status: 'ok', result: { id: `A-${t}` } },
      });
    }
    add(turns, { type: 'finish', answer: 'Settled them all.', reason: null, toolCalls: turns });
    const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
    // A stand-in run: its state and its stream, as the handler would send them.
    await page.route(`**/runs/${runId}`, (route) =>
      route.fulfill({
        json: {
          runId,
          status: 'COMPLETED',
          state: { agent: 'test', phase: 'done', turn: turns, outcome: { status: 'answered' } },
        },
      }),
    );
    await page.route(`**/runs/${runId}/events`, (route) =>
      route.request().headers()['last-event-id'] !== undefined
        ? route.fulfill({ status: 204 })
        : route.fulfill({
            headers: { 'content-type': 'text/event-stream' },
            body: `${events.map((e) => `id: ${e.offset}\ndata: ${JSON.stringify(e)}\n\n`).join('')}event: end\ndata: {}\n\n`,
          }),
    );
    await page.goto(pageOf(open, runId));
    await page.locator('#timeline li.finish', { hasText: 'Settled them all.' }).waitFor(WAIT);
    await page.locator('#status', { hasText: 'The run has ended.' }).waitFor(WAIT);
    // The newest 100 entries: the last turns and the end; the request and the first turns wait.
    const entries = page.locator('#timeline > li');
    expect(await entries.count()).toBe(100);
    expect(await entries.first().getAttribute('data-key')).toBe('tool:0:81.1#1'); // entry 162 of 262
    expect(await page.locator('#timeline li.request').count()).toBe(0);
    const earlier = page.locator('#earlier');
    expect(await earlier.textContent()).toBe('Show earlier (100 of 162 more)');
    // By keyboard: the page before goes above; then the rest, and focus moves to the first entry.
    await earlier.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => entries.count()).toBe(200);
    expect(await entries.first().getAttribute('data-key')).toBe('tool:0:31.1#1');
    expect(await earlier.textContent()).toBe('Show earlier (62 of 62 more)');
    await page.keyboard.press('Enter');
    await expect.poll(() => entries.count()).toBe(262);
    expect(await earlier.isHidden()).toBe(true);
    expect(await page.locator('#timeline li.request:focus').textContent()).toContain('Settle every order.');
    // In story order, each once.
    const turnsShown = await page.locator('#timeline li.model .kind').allTextContents();
    expect(turnsShown).toEqual(Array.from({ length: turns }, (_, t) => `model turn ${t + 1}`));

    // Each model turn and tool call links the run's history in the Temporal UI, naming its activity.
    const history = `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(runId)}`;
    const model = page.locator('#timeline li.model').nth(2);
    expect(await model.locator('a.ui').getAttribute('href')).toBe(history);
    expect(await model.locator('a.ui').textContent()).toBe('Temporal UI · model:3:1');
    const tool = page.locator('#timeline li.tool').nth(2);
    expect(await tool.locator('a.ui').getAttribute('href')).toBe(history);
    expect(await tool.locator('a.ui').textContent()).toBe('Temporal UI · tool:3.1:lookup_order:1');
    // Reasoning folded, as text: closed until opened, apart from what the model said.
    const reasoning = model.locator('details.reasoning');
    expect(await reasoning.getAttribute('open')).toBeNull();
    expect(await reasoning.locator('.text').isVisible()).toBe(false);
    expect(await model.locator(':scope > .text').textContent()).toBe('Looking up A-2.');
    await reasoning.locator('summary').click();
    expect(await reasoning.locator('.text').textContent()).toBe(
      'Order A-2 next <img src=x onerror="window.__pwned=6">',
    );
    expect(await inPage(page).count('#timeline img')).toBe(0);
    expect(await inPage(page).pwned()).toBeUndefined();
    await page.close();
  }, 120_000);

  it("reads another tenant's run as not found, and its own", async () => {
    const runId = await start(tenants, [scriptStep.text('Hello, acme.')], 'Say hello.', tokenOf('acme'));
    await handle(runId).result();
    const signedIn = async (tenant: string) => {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(pageOf(tenants, runId));
      await page.locator('#token').waitFor({ state: 'visible', ...WAIT });
      await page.locator('#token').fill(tokenOf(tenant));
      await page.locator('#save-token').click();
      return page;
    };
    const [acme, globex] = await Promise.all([signedIn('acme'), signedIn('globex')]);
    await acme.locator('#timeline li.finish', { hasText: 'Hello, acme.' }).waitFor(WAIT);
    await globex.locator('#missing', { hasText: `No run with id "${runId}".` }).waitFor(WAIT);
    expect(await globex.locator('#timeline li').count()).toBe(0);
    expect(await globex.locator('body').textContent()).not.toContain('Hello, acme.');
    await Promise.all([acme.close(), globex.close()]);
  }, 120_000);
});
