/**
 * Two tenants' inbox pages in headless Chromium, each signed in with its own token (which
 * `authorize` maps to a tenant): each page shows only its tenant's waiting runs.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { HttpError } from '../servers/http/http-error.js';
import { scriptStep } from '../testing/script-steps.js';
import { launchChromium } from './support/chromium.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let served: Served;
let browser: Browser;
let model = '';
const WAIT = { timeout: 60_000 };
const TOKENS: Record<string, string> = { [`acme-${randomUUID()}`]: 'acme', [`globex-${randomUUID()}`]: 'globex' };
const tokenOf = (tenant: string) => Object.keys(TOKENS).find((t) => TOKENS[t] === tenant)!;

beforeAll(async () => {
  [w, browser] = await Promise.all([startTestWorker(), launchChromium()]);
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      authorize: (request) => {
        const tenant = TOKENS[/^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? ''];
        if (!tenant)
          throw new HttpError(401, 'unauthorized', 'Send your token.', { 'www-authenticate': 'Bearer realm="cairn"' });
        return { tenant };
      },
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
    }),
  );
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
  await w?.stop();
});

async function startAs(tenant: string, orderId: string): Promise<string> {
  ({ model } = w.script([scriptStep.call('issue_refund', { orderId, amount: 80 }), scriptStep.text('Refunded.')]));
  const response = await fetch(`${served.url}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokenOf(tenant)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'test', prompt: `Refund ${orderId}.`, threadId: `refund-${orderId}` }),
  });
  expect(response.status).toBe(201);
  const { runId } = (await response.json()) as { runId: string };
  await awaiting(w.client.workflow.getHandle(runId), 'awaiting_review');
  return runId;
}

async function signedIn(tenant: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(`${served.url}/`);
  await page.locator('#token').waitFor(WAIT);
  await page.locator('#token').fill(tokenOf(tenant));
  await page.locator('#save-token').click();
  return page;
}

describe('two tenants, two inbox pages', () => {
  it("each page shows only its tenant's runs", async () => {
    // The same order and thread id for both tenants: two runs, one on each page.
    const acme = [await startAs('acme', 'T-1'), await startAs('acme', 'T-2')];
    const globex = [await startAs('globex', 'T-1')];
    const [acmePage, globexPage] = await Promise.all([signedIn('acme'), signedIn('globex')]);
    const cards = (page: Page) => page.locator('.card.review');
    await Promise.all([
      ...acme.map((id) => cards(acmePage).filter({ hasText: id }).waitFor(WAIT)),
      ...globex.map((id) => cards(globexPage).filter({ hasText: id }).waitFor(WAIT)),
    ]);
    const shown = async (page: Page) =>
      (await cards(page).evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!.split('|')[0]))).sort();
    expect(await shown(acmePage)).toEqual([...acme].sort());
    expect(await shown(globexPage)).toEqual(globex);
    expect(await globexPage.locator('body').textContent()).not.toContain('T-2');
    for (const id of [...acme, ...globex]) await w.client.workflow.getHandle(id).terminate('test done');
  });
});
