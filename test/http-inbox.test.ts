/**
 * The inbox page in headless Chromium (test/support/chromium.ts: no browser download): runs wait
 * on people, the page lists them (found through visibility), an edit that breaks the tool's schema
 * is caught before sending, clicks answer and accept, a review decided elsewhere leaves the page
 * without a reload, the runs complete and the page empties. Screenshots go to
 * .cache/screenshots/inbox/ (ignored by git), printed for a person to look at.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { launchChromium } from './support/chromium.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let served: Served;
let browser: Browser;
let model = '';
const SHOTS = join(PACKAGE_ROOT, '.cache', 'screenshots', 'inbox');
const WAIT = { timeout: 60_000 };

beforeAll(async () => {
  [w, browser] = await Promise.all([startTestWorker(), launchChromium()]);
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      temporalUiUrl: 'http://localhost:8233',
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
    }),
  );
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
  await w?.stop();
});

async function start(script: Parameters<TestWorker['script']>[0], prompt: string): Promise<string> {
  ({ model } = w.script(script));
  const response = await fetch(`${served.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'test', prompt, threadId: `inbox-${randomUUID()}` }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

/** The page's globals, as page functions see them (this project's types have no DOM). */
interface PageGlobal {
  document: {
    activeElement: { getAttribute(name: string): string | null } | null;
    getElementById(id: string): { textContent: string | null } | null;
  };
}

describe('the inbox page', () => {
  it('lists every run waiting on a person, takes answers and decisions, follows decisions made elsewhere, and empties', async () => {
    const asking = await start(
      [
        scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
        scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
        scriptStep.text('Redelivery booked.'),
      ],
      'Redeliver A-1.',
    );
    const refunding = await start(
      [scriptStep.call('issue_refund', { orderId: 'A-2', amount: 80 }), scriptStep.text('Refunded.')],
      'Refund A-2.',
    );
    const wiring = await start(
      [scriptStep.call('wire_transfer', { account: 'DE-0042', amount: 500 }), scriptStep.text('Wired.')],
      'Wire 500.',
    );
    const handle = (id: string) => w.client.workflow.getHandle(id);
    await Promise.all([
      awaiting(handle(asking), 'awaiting_clarification'),
      awaiting(handle(refunding), 'awaiting_review'),
      awaiting(handle(wiring), 'awaiting_review'),
    ]);
    const refundsBefore = calls.issue_refund ?? 0;

    const page = await browser.newPage({ viewport: { width: 1000, height: 1100 } });
    await page.goto(`${served.url}/`);
    const question = page.locator('.card.question', { hasText: asking });
    const refund = page.locator('.card.review', { hasText: refunding });
    const wire = page.locator('.card.review', { hasText: wiring });
    await Promise.all([question.waitFor(WAIT), refund.waitFor(WAIT), wire.waitFor(WAIT)]);
    expect(await question.textContent()).toContain('Which delivery window suits you: morning or afternoon?');
    expect(await wire.textContent()).toContain('Check the account against the customer record before accepting.');
    expect(await wire.textContent()).toContain('Allowed: accept, reject');
    expect(await wire.locator('button', { hasText: 'Edit' }).count()).toBe(0);
    expect(await refund.locator('a', { hasText: 'Temporal UI' }).getAttribute('href')).toBe(
      `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(refunding)}`,
    );
    // What a person needs to judge: the request, the latest words, since when it waits, the whole arguments.
    expect(await refund.locator('.convo').textContent()).toContain('Refund A-2.');
    expect(await question.locator('.convo').textContent()).toContain('Redeliver A-1.');
    const since = new Date((await refund.locator('.since').getAttribute('title'))!).getTime();
    const startedAt = (await handle(refunding).describe()).startTime.getTime();
    const asked = (await (await fetch(`${served.url}/inbox`)).json()) as {
      items: { runId: string; waitingSince: string; startedAt: string; exchange: unknown[] }[];
    };
    const listed = asked.items.find((i) => i.runId === refunding)!;
    expect(since).toBe(new Date(listed.waitingSince).getTime());
    expect(since).toBeGreaterThan(startedAt);
    expect(
      await refund
        .locator('textarea')
        .evaluate(
          (t) =>
            (t as unknown as { scrollHeight: number }).scrollHeight <=
            (t as unknown as { clientHeight: number }).clientHeight + 1,
        ),
    ).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'inbox-waiting.png'), fullPage: true });

    // An edit that breaks the tool's schema is caught on the page; nothing is sent.
    await refund.locator('textarea').fill(JSON.stringify({ orderId: 'A-2', amount: -5 }));
    await refund.locator('button', { hasText: 'Edit' }).click();
    await refund.locator('.error', { hasText: 'arguments.amount must be more than 0' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'inbox-edit-refused.png'), fullPage: true });
    expect(await handle(refunding).query('state')).toMatchObject({ phase: 'awaiting_review' });

    // Clicks: accept the refund as it was, answer the question.
    await refund.locator('textarea').fill(JSON.stringify({ orderId: 'A-2', amount: 80 }));
    await refund.locator('button', { hasText: 'Accept' }).click();
    // The question shows what its answer may be (the tool's schema), and an answer outside it is caught on the page.
    expect(await question.textContent()).toContain('one of: morning, afternoon');
    // A person typing keeps the field through the page's polls (each poll once moved every card, which blurred it).
    const field = question.locator('input[name=window]');
    await field.focus();
    await page.keyboard.type('eve');
    const status = page.locator('#status');
    for (let polls = 0; polls < 2; polls++) {
      const before = await status.textContent();
      await page.waitForFunction(
        (t) => (globalThis as unknown as PageGlobal).document.getElementById('status')?.textContent !== t,
        before,
        WAIT,
      );
    }
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobal).document.activeElement?.getAttribute('name')),
    ).toBe('window');
    await page.keyboard.type('ning');
    expect(await field.inputValue()).toBe('evening');
    await question.locator('input[name=window]').fill('evening');
    await question.locator('button', { hasText: 'Answer' }).click();
    await question.locator('.error', { hasText: 'answer.window must be one of "morning", "afternoon"' }).waitFor(WAIT);
    await question.locator('input[name=window]').fill('morning');
    await question.locator('button', { hasText: 'Answer' }).click();
    await Promise.all([
      refund.waitFor({ state: 'detached', ...WAIT }),
      question.waitFor({ state: 'detached', ...WAIT }),
    ]);
    // Each act is confirmed on the page.
    await page.locator('.notice', { hasText: `Accepted the call to issue_refund` }).waitFor(WAIT);
    await page
      .locator('.notice', { hasText: `Answered "Which delivery window suits you: morning or afternoon?" on ${asking}` })
      .waitFor(WAIT);

    // Decided elsewhere (the JSON API): the card leaves without a reload.
    const pending = (await awaiting(handle(wiring), 'awaiting_review')).reviews[0]!;
    const decided = await fetch(
      `${served.url}/runs/${encodeURIComponent(wiring)}/reviews/${encodeURIComponent(pending.toolCallId)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ argsHash: pending.argsHash, decision: { type: 'reject', reason: 'Unknown account.' } }),
      },
    );
    expect(decided.status).toBe(200);
    await wire.waitFor({ state: 'detached', ...WAIT });
    await page.locator('#empty', { hasText: 'Nobody is waiting on a person.' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'inbox-empty.png'), fullPage: true });

    expect(await handle(asking).result()).toMatchObject({ answer: 'Redelivery booked.' });
    expect(await handle(refunding).result()).toMatchObject({ answer: 'Refunded.' });
    expect(await handle(wiring).result()).toMatchObject({ answer: 'Wired.' });
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    console.log(`Inbox screenshots: ${SHOTS}`);
  }, 180_000); // Three runs, a browser and a dozen waits of up to WAIT each: more than the default 60 s on a loaded CI.

  it("polls one request at a time on a slow server: polls never pile up in front of a person's act (why it once waited a minute under load)", async () => {
    // A server slower than the poll interval: each inbox answer takes 2.5 s.
    const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
    const handler = createCairnHttpHandler({ client, agents: [testAgent] });
    let answered = 0;
    const slow = await serve(async (request) => {
      if (new URL(request.url).pathname !== '/inbox') return handler(request);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      try {
        return await handler(request);
      } finally {
        answered++;
      }
    });
    const page = await browser.newPage();
    // Count the page's own inbox requests in flight (the browser would queue overlapping ones itself).
    await page.addInitScript(() => {
      const g = globalThis as unknown as { fetch: typeof fetch; inboxInFlight: number; inboxMost: number };
      const original = g.fetch.bind(g);
      g.inboxInFlight = 0;
      g.inboxMost = 0;
      g.fetch = (input, init) => {
        if (!String(input).startsWith('inbox')) return original(input, init);
        g.inboxMost = Math.max(g.inboxMost, ++g.inboxInFlight);
        return original(input, init).finally(() => g.inboxInFlight--);
      };
    });
    try {
      await page.goto(`${slow.url}/`);
      await page.locator('#status', { hasText: 'updated' }).waitFor(WAIT);
      while (answered < 2) await page.waitForTimeout(200);
      expect(await page.evaluate(() => (globalThis as unknown as { inboxMost: number }).inboxMost)).toBe(1);
      // No Temporal UI link where the handler was not told of one that serves.
      expect(await page.locator('a', { hasText: 'Temporal UI' }).count()).toBe(0);
    } finally {
      await page.close();
      await slow.close();
    }
  });
});
