/**
 * More stories on the run page (`GET /runs/:id/page`) in headless Chromium, against runs on a real
 * dev server (test/run-page.test.ts has the setup's first stories): a run that waits on its budget
 * and is extended from the page's form; a run that continues as new, told as one story across the
 * chain; a parent whose agent tool runs a child; a live run whose model streams, its partial text on
 * the page before the turn ends.
 */
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CairnClient, type StartRunOptions } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import { launchChromium } from './support/chromium.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let open: Served;
let browser: Browser;
/** The start options of the next run the page's server starts (model, policy, continue-as-new). */
let next: Partial<StartRunOptions> = {};
const WAIT = { timeout: 60_000 };

/** A gate a model call waits on until the test opens it (from what the page shows). */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
const LIVE_REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';
/** Opened once the page shows the first pieces of the live reply: the turn cannot end before. */
const partialShown = gate();
/** Opened once the page shows the second hand-over: the chain's last turn cannot start before. */
const handOverShown = gate();
// Streaming models: each holds a piece of a reply until the page has shown what the test waits for.
const models = {
  live: new ScriptedModel('live', [scriptStep.text(LIVE_REPLY)], {
    streaming: { pieces: 10, before: (i) => (i === 3 ? partialShown.opened : undefined) },
  }),
  chain: new ScriptedModel(
    'chain',
    [
      scriptStep.call('lookup_order', { orderId: 'A-6' }, 'Looking A-6 up.'),
      scriptStep.call('lookup_order', { orderId: 'A-7' }, 'Now A-7.'),
      scriptStep.text('A-6 and A-7 have shipped.'),
    ],
    { streaming: { before: (i, context) => (context.step === 2 && i === 0 ? handOverShown.opened : undefined) } },
  ),
};

beforeAll(async () => {
  [w, browser] = await Promise.all([
    startTestWorker({ models, activityOptions: { modelActivity: { streaming: true } } }),
    launchChromium(),
  ]);
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  open = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      startOptions: () => ({ temporal: { workflowExecutionTimeout: '3m' }, ...next }),
    }),
  );
});
afterAll(async () => {
  // A failed test must not leave its model call held.
  partialShown.open();
  handOverShown.open();
  await browser?.close();
  await open?.close();
  await w?.stop();
});

async function start(options: Partial<StartRunOptions>, prompt: string): Promise<string> {
  next = options;
  const response = await fetch(`${open.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'test', prompt, threadId: `run-page-${randomUUID()}` }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}
const scripted = (script: Parameters<TestWorker['script']>[0]) => w.script(script).model;
const pageOf = (runId: string) => `${open.url}/runs/${encodeURIComponent(runId)}/page`;
const handle = (runId: string) => w.client.workflow.getHandle(runId);
const usage = { inputTokens: 40, outputTokens: 20 };

/** The story's entries, each as "<class>: <text>", in the order the page shows them. */
/** A picture of the page: docs/images/run-page-<name>.png with CAIRN_DOCS_SCREENSHOTS=1, else a temp file. */
const shoot = (page: Page, name: string) =>
  page.screenshot({
    path: process.env.CAIRN_DOCS_SCREENSHOTS
      ? join(PACKAGE_ROOT, 'docs', 'images', `run-page-${name}.png`)
      : join(tmpdir(), `cairn-run-page-${name}-${process.pid}.png`),
    fullPage: true,
  });

const entries = (page: Page) =>
  page
    .locator('#timeline > li')
    .evaluateAll((lis) => lis.map((li) => `${li.getAttribute('class')}: ${li.textContent}`));

describe('the run page tells', () => {
  it('a run waiting on its budget: the request shows, an extension given from the page lands', async () => {
    const runId = await start(
      {
        model: scripted([
          {
            kind: 'respond',
            text: 'Looking A-3 up.',
            calls: [{ name: 'lookup_order', arguments: { orderId: 'A-3' } }],
            usage,
          },
          { kind: 'respond', text: 'A-3 has shipped.', calls: [], usage },
        ]),
        policy: { budget: { maxTokens: 50, onExhausted: 'ask' } },
      },
      'Where is A-3?',
    );
    await awaiting(handle(runId), 'awaiting_budget');
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await page.goto(pageOf(runId));
    // What it waits on: the card with what was spent, the story's entry with the request's id.
    const card = page.locator('#waiting .card.budget');
    await card.waitFor(WAIT);
    expect(await card.textContent()).toContain('60 of 50 tokens');
    await page.locator('#status', { hasText: 'Waiting on a person.' }).waitFor(WAIT);
    const asked = page.locator('#timeline li.decision', { hasText: 'budget used up' });
    await asked.waitFor(WAIT);
    expect(await asked.textContent()).toContain(
      'budget used up (60 of 50 tokens): waiting for a person to extend it (b1)',
    );
    // Nothing to extend by yet: the form says so, and nothing is sent.
    await card.locator('button', { hasText: 'Extend' }).click();
    await card.locator('.error', { hasText: 'Add tokens or cost first.' }).waitFor(WAIT);
    expect((await handle(runId).query<{ phase: string }>('state')).phase).toBe('awaiting_budget');
    // By keyboard: the amount typed, Extend focused, Enter.
    await card.locator('input[name="tokens"]').fill('100');
    await card.locator('button', { hasText: 'Extend' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.notice', { hasText: 'Extended the budget: the run goes on.' }).waitFor(WAIT);
    // Live: the run goes on past its first budget, to its answer.
    await page.locator('#timeline li.finish', { hasText: 'A-3 has shipped.' }).waitFor(WAIT);
    await card.waitFor({ state: 'detached', ...WAIT });
    await page.locator('#outcome', { hasText: 'answered' }).waitFor(WAIT);
    expect(await page.locator('#meta').textContent()).toContain('tokens 120');
    expect(await handle(runId).result()).toMatchObject({ answer: 'A-3 has shipped.', outcome: { status: 'answered' } });
    // Read afresh from history: the request, then who extended the budget, then the call it held back, then the end.
    await page.reload();
    await page.locator('#status', { hasText: 'The run has ended.' }).waitFor(WAIT);
    const story = await entries(page);
    const at = (text: string) => story.findIndex((e) => e.includes(text));
    expect(at('budget used up (60 of 50 tokens)')).toBeGreaterThan(at('Looking A-3 up.'));
    const extended = story.findIndex((e) => /^person: .*budget/.test(e));
    expect(extended).toBeGreaterThan(at('budget used up'));
    expect(at('"status": "shipped"')).toBeGreaterThan(extended);
    expect(story.at(-1)).toMatch(/^finish: .*A-3 has shipped\./);
    expect(await page.locator('#waiting .card').count()).toBe(0);
    await shoot(page, 'budget');
    await page.close();
  }, 180_000);

  it('a review edited from the page: the call runs with the edit, and the story says who changed what', async () => {
    const runId = await start(
      {
        model: scripted([
          scriptStep.call('issue_refund', { orderId: 'A-9', amount: 80 }),
          scriptStep.text('Refunded on A-9.'),
        ]),
      },
      'Refund A-9.',
    );
    await awaiting(handle(runId), 'awaiting_review');
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await page.goto(pageOf(runId));
    const review = page.locator('#waiting .card.review', { hasText: 'issue_refund' });
    await review.waitFor(WAIT);
    // Accept refuses changed arguments; Edit sends them.
    await review.locator('textarea[name=args]').fill('{ "orderId": "A-9", "amount": 40 }');
    await review.locator('button', { hasText: 'Accept' }).click();
    await review.locator('.error', { hasText: 'use Edit' }).waitFor(WAIT);
    await review.locator('button', { hasText: 'Edit' }).click();
    await page.locator('.notice', { hasText: 'Edited and accepted the call to issue_refund' }).waitFor(WAIT);
    await page.locator('#timeline li.finish', { hasText: 'Refunded on A-9.' }).waitFor(WAIT);
    expect(await page.locator('#timeline li.review', { hasText: 'issue_refund' }).textContent()).toContain(
      'edited, run with {"orderId":"A-9","amount":40}',
    );
    expect(await page.locator('#timeline li.tool', { hasText: 'issue_refund' }).textContent()).toContain(
      '"amount": 40',
    );
    await page.close();
  }, 180_000);

  it('a run that continues as new, live and from history, as one story across the chain', async () => {
    const runId = await start({ model: 'scripted:chain', continueAsNewAfterTurns: 1 }, 'Where are A-6 and A-7?');
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await page.goto(pageOf(runId));
    // Live across both hand-overs; the last turn waits until the page has shown the second.
    await page.locator('#timeline li.hand_over', { hasText: 'generation 2' }).waitFor(WAIT);
    expect(await page.locator('#timeline li.finish').count()).toBe(0);
    handOverShown.open();
    await page.locator('#timeline li.finish', { hasText: 'A-6 and A-7 have shipped.' }).waitFor(WAIT);
    expect(await handle(runId).result()).toMatchObject({ answer: 'A-6 and A-7 have shipped.' });
    const live = await entries(page);
    // Read afresh from history (the chain's last run): the same story.
    await page.reload();
    await page.locator('#status', { hasText: 'The run has ended.' }).waitFor(WAIT);
    await page.locator('#timeline li.finish', { hasText: 'A-6 and A-7 have shipped.' }).waitFor(WAIT);
    const story = await entries(page);
    // The stamps of times aside, the live story and history's are one.
    const untimed = (list: string[]) => list.map((e) => e.replace(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/g, ''));
    expect(untimed(story)).toEqual(untimed(live));
    const kinds = story.map((e) => e.slice(0, e.indexOf(':')));
    expect(kinds.filter((k) => k === 'request')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'finish')).toHaveLength(1);
    const at = (text: string) => story.findIndex((e) => e.includes(text));
    // Before the first hand-over, between the two, after the second: each turn once, numbered on.
    expect(story[at('continued as new')]).toContain('generation 1');
    expect(at('Where are A-6 and A-7?')).toBe(0);
    expect(at('"orderId": "A-6"')).toBeLessThan(at('generation 1'));
    expect(at('"orderId": "A-7"')).toBeGreaterThan(at('generation 1'));
    expect(at('"orderId": "A-7"')).toBeLessThan(at('generation 2'));
    expect(at('A-6 and A-7 have shipped.')).toBeGreaterThan(at('generation 2'));
    expect(await page.locator('#timeline li.model .kind').allTextContents()).toEqual([
      'model turn 1',
      'model turn 2',
      'model turn 3',
    ]);
    expect(await page.locator('#timeline li.tool', { hasText: 'lookup_order' }).count()).toBe(2);
    await shoot(page, 'continue-as-new');
    await page.close();
  }, 180_000);

  it("a parent's agent tool: the child's call, its result, and a link to the child's own story", async () => {
    const runId = await start(
      {
        model: scripted([
          scriptStep.call('ask_helper', { task: 'Where is order A-1001?' }),
          scriptStep.call('lookup_order', { orderId: 'A-1001' }), // the child's first turn
          scriptStep.text('A-1001 has shipped.'), // the child's answer
          scriptStep.text('The helper says A-1001 has shipped.'),
        ]),
      },
      'Ask the helper about A-1001.',
    );
    await handle(runId).result();
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await page.goto(pageOf(runId));
    await page.locator('#timeline li.finish', { hasText: 'The helper says A-1001 has shipped.' }).waitFor(WAIT);
    await shoot(page, 'agent-tool');
    const call = page.locator('#timeline li.tool', { hasText: 'ask_helper' });
    expect(await call.textContent()).toContain('"task": "Where is order A-1001?"');
    expect(await call.locator('details', { hasText: 'Result' }).textContent()).toContain(
      '"answer": "A-1001 has shipped."',
    );
    // The child's calls are its own story, one link away.
    const child = call.locator('a', { hasText: `${runId}/1.1` });
    expect(await child.getAttribute('href')).toBe(`/runs/${encodeURIComponent(`${runId}/1.1`)}/page`);
    await child.click();
    await page.waitForURL(pageOf(`${runId}/1.1`), WAIT);
    await page.locator('#timeline li.finish', { hasText: 'A-1001 has shipped.' }).waitFor(WAIT);
    expect(await page.locator('#timeline li.request').textContent()).toContain('Where is order A-1001?');
    expect(await page.locator('#timeline li.tool', { hasText: 'lookup_order' }).textContent()).toContain(
      '"orderId": "A-1001"',
    );
    await page.close();
  }, 180_000);

  it('a live run: the model turn streams onto the page before it ends', async () => {
    const runId = await start({ model: 'scripted:live' }, 'Where is A-1001?');
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await page.goto(pageOf(runId));
    // The step it waits on: the model, answering; its text so far, which the turn holds until seen.
    const turn = page.locator('#timeline li.model', { hasText: 'answering…' });
    await turn.waitFor(WAIT);
    await page.locator('#status', { hasText: 'Live: following the run.' }).waitFor(WAIT);
    await expect.poll(() => turn.locator('.text').textContent(), WAIT).toBe(LIVE_REPLY.slice(0, 21));
    expect(await page.locator('#timeline li.finish').count()).toBe(0);
    await shoot(page, 'live');
    partialShown.open();
    await page.locator('#timeline li.finish', { hasText: LIVE_REPLY }).waitFor(WAIT);
    // The turn, ended, is one entry with the whole reply, no longer answering.
    const ended = page.locator('#timeline li.model');
    expect(await ended.count()).toBe(1);
    expect(await ended.locator('.text').textContent()).toBe(LIVE_REPLY);
    expect(await ended.textContent()).not.toContain('answering…');
    await page.close();
  }, 180_000);
});
