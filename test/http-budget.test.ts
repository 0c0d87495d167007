/**
 * A run waiting on its budget (policy `budget.onExhausted: 'ask'`), reached over HTTP on a real dev
 * server: one real `@ag-ui/client` HttpAgent kept across the budget interrupt (`budget:<id>`) and
 * its resume; REST `POST /runs/:id/budget` with its refusals (422 unusable, 409 stale, 409 closed);
 * the inbox JSON's budget card and the inbox page's (headless Chromium: an extension missing the
 * used-up limit is caught on the page, a click extends); the UI stream's `data-cairn-budget` part. The scripted model
 * reports 20 + 15 tokens on its first reply, over a budget of 30.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent, type BaseEvent, type RunFinishedEvent } from '@ag-ui/client';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep, type FixedStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { launchChromium } from './support/chromium.js';
import { serve, type Served } from './support/http.js';
import { awaiting, waitFor } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let served: Served;
let model = '';

beforeAll(async () => {
  w = await startTestWorker();
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      startOptions: () => ({
        model,
        policy: { budget: { maxTokens: 30, onExhausted: 'ask', wrapUpAt: 1 } },
        temporal: { workflowExecutionTimeout: '2m' },
      }),
    }),
  );
});
afterAll(async () => {
  await served?.close();
  await w?.stop();
});

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const handle = (workflowId: string) => w.client.workflow.getHandle(workflowId);
/** A first reply over the budget (35 tokens of 30), then an answer. */
const overBudget = (answer: string) =>
  w.script([
    {
      ...(scriptStep.call('lookup_order', { orderId: 'A-1' }) as Extract<FixedStep, { kind: 'respond' }>),
      usage: { inputTokens: 20, outputTokens: 15 },
    },
    scriptStep.text(answer),
  ]);

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: body.error.code };
}

async function runOnce(agent: HttpAgent, parameters?: Parameters<HttpAgent['runAgent']>[0]) {
  const events: BaseEvent[] = [];
  await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  return { events, finished: events.at(-1) as RunFinishedEvent };
}

describe('budget requests over HTTP', () => {
  it('AG-UI: the window ends with the budget interrupt; a resume with { decision } extends it and the run answers', async () => {
    ({ model } = overBudget('A-1 is on its way.'));
    const threadId = `budget-${randomUUID()}`;
    const agent = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1?' }],
    });

    const first = await runOnce(agent);
    expect(first.finished.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [
        {
          id: expect.stringMatching(/^budget:b1@[0-9a-f]{12}$/), // the request's id in the thread: b1 of this run
          reason: 'budget_exhausted',
          metadata: { requestId: 'b1', request: { limit: 'tokens', maxTokens: 30, usedTokens: 35 } },
        },
      ],
    });
    const [interrupt] = (first.finished.outcome as { interrupts: { id: string; responseSchema: unknown }[] })
      .interrupts;
    expect(interrupt!.responseSchema).toMatchObject({ required: ['decision'] });

    // An extension that does not add the used-up limit is refused by the run, and leaves it waiting.
    const base = { threadId, runId: 'r-bad', messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
    const refused = await fetch(
      `${served.url}/agui`,
      json({
        ...base,
        resume: [
          { interruptId: 'budget:b1', status: 'resolved', payload: { decision: { type: 'extend', costUsd: 1 } } },
        ],
      }),
    );
    expect(await errorOf(refused)).toEqual({ status: 422, code: 'invalid_input' });
    const stale = await fetch(
      `${served.url}/agui`,
      json({
        ...base,
        resume: [
          { interruptId: 'budget:b9', status: 'resolved', payload: { decision: { type: 'extend', tokens: 10 } } },
        ],
      }),
    );
    expect(await errorOf(stale)).toEqual({ status: 409, code: 'not_pending' });

    // The same agent resumes with the person's extension; the run answers.
    const resumed = await runOnce(agent, {
      resume: [
        { interruptId: interrupt!.id, status: 'resolved', payload: { decision: { type: 'extend', tokens: 100 } } },
      ],
    });
    expect(resumed.finished.outcome).toMatchObject({ type: 'success' });
    const state = await handle(`cairn-thread-${threadId}`).query('state');
    expect(state).toMatchObject({
      phase: 'done',
      answer: 'A-1 is on its way.',
      budget: { maxTokens: 130, extended: { tokens: 100 }, pending: null },
    });
  });

  it('REST and the inbox: the card tells the spending; bad decisions are 422/409; a stop ends the run; a closed run is 409', async () => {
    ({ model } = overBudget('never said'));
    const started = (await (
      await fetch(
        `${served.url}/runs`,
        json({ agent: 'test', prompt: 'Where is A-1?', threadId: `budget-${randomUUID()}` }),
      )
    ).json()) as { runId: string };
    const runId = started.runId;
    await awaiting(handle(runId), 'awaiting_budget');
    const url = `${served.url}/runs/${encodeURIComponent(runId)}/budget`;

    type Item = {
      runId: string;
      phase: string;
      waiting: { kind: string; id: string; request: unknown; usage: unknown; schema: unknown }[];
    };
    const item = await waitFor(
      async () =>
        ((await (await fetch(`${served.url}/inbox`)).json()) as { items: Item[] }).items.find((i) => i.runId === runId),
      'the inbox card',
    );
    expect(item).toMatchObject({
      phase: 'awaiting_budget',
      waiting: [
        {
          kind: 'budget',
          id: expect.stringMatching(/^budget:b1@[0-9a-f]{12}$/),
          request: { id: 'b1', limit: 'tokens', maxTokens: 30, usedTokens: 35 },
          usage: { inputTokens: 20, outputTokens: 15 },
          schema: { required: ['decision'] },
        },
      ],
    });

    expect(await errorOf(await fetch(url, json({ decision: { type: 'grow' } })))).toEqual({
      status: 422,
      code: 'invalid_input',
    });
    expect(await errorOf(await fetch(url, json({ decision: { type: 'extend', tokens: 0 } })))).toEqual({
      status: 422,
      code: 'invalid_input',
    });
    expect(
      await errorOf(await fetch(url, json({ requestId: 'b7', decision: { type: 'extend', tokens: 10 } }))),
    ).toEqual({ status: 409, code: 'not_pending' });

    const stopped = await fetch(url, json({ requestId: 'b1', decision: { type: 'stop', reason: 'enough' } }));
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toEqual({ runId, requestId: 'b1', decision: 'stop' });
    const result = await handle(runId).result();
    expect(result.outcome).toMatchObject({
      status: 'ended',
      code: 'budget_exhausted',
      message: expect.stringContaining('(enough)'),
    });
    expect(await errorOf(await fetch(url, json({ decision: { type: 'extend', tokens: 10 } })))).toEqual({
      status: 409,
      code: 'run_closed',
    });
  });

  it('the UI stream tells a budget request as a data-cairn-budget part', async () => {
    ({ model } = overBudget('fine'));
    const id = `chat-${randomUUID()}`;
    const response = await fetch(
      `${served.url}/chat`,
      json({ id, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Where is A-1?' }] }] }),
    );
    const chunks = (await response.text())
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; id?: string; data?: unknown });
    expect(chunks.find((c) => c.type === 'data-cairn-budget')).toMatchObject({
      id: expect.stringMatching(/^budget:b1@[0-9a-f]{12}$/),
      data: {
        interruptId: expect.stringMatching(/^budget:b1@[0-9a-f]{12}$/),
        request: { limit: 'tokens', usedTokens: 35 },
      },
    });
    await handle(`cairn-thread-${id}`).executeUpdate('extendBudget', {
      args: [{ id: 'b1', decision: { type: 'stop' } }],
    });
  });

  it('the inbox page: a budget card tells the spending; an extension without tokens is caught on the page; Extend goes on', {
    timeout: 240_000, // a browser started on a loaded machine, then four waits of up to 60 s
  }, async () => {
    ({ model } = overBudget('A-1 arrives today.'));
    const runId = (
      (await (
        await fetch(
          `${served.url}/runs`,
          json({ agent: 'test', prompt: 'Where is A-1?', threadId: `budget-${randomUUID()}` }),
        )
      ).json()) as { runId: string }
    ).runId;
    await awaiting(handle(runId), 'awaiting_budget');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(`${served.url}/`);
      const card = page.locator('.card.budget', { hasText: runId });
      await card.waitFor({ timeout: 60_000 });
      expect(await card.textContent()).toContain('Budget used up: 35 of 30 tokens');
      await card.locator('input[name=costUsd]').fill('1');
      await card.locator('button', { hasText: 'Extend' }).click();
      await card.locator('.error', { hasText: 'add tokens' }).waitFor({ timeout: 60_000 });
      expect(await handle(runId).query('state')).toMatchObject({ phase: 'awaiting_budget' });
      await card.locator('input[name=costUsd]').fill('');
      await card.locator('input[name=tokens]').fill('100');
      await card.locator('button', { hasText: 'Extend' }).click();
      await page.locator('.notice', { hasText: `Extended the budget of ${runId}` }).waitFor({ timeout: 60_000 });
      await card.waitFor({ state: 'detached', timeout: 60_000 });
    } finally {
      await browser.close();
    }
    expect((await handle(runId).result()).answer).toBe('A-1 arrives today.');
    expect((await handle(runId).query('state')) as unknown).toMatchObject({
      budget: { extended: { tokens: 100, costUsd: 0 } },
    });
  });
});
