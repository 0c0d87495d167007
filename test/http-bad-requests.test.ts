/**
 * Bad requests to the HTTP handler get a JSON error with a stable code and a fitting status, and
 * leave the run untouched: malformed JSON, a 10 MB body, an unknown run, a stale or disallowed
 * review, a wrong token, and a thousand concurrent answers to one question (one is taken).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnClient } from '../client/cairn-client.js';
import { bearerToken } from '../servers/http/authorize.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let open: Served;
let guarded: Served;
let model = '';
const TOKEN = 'test-token-7f3a';

beforeAll(async () => {
  w = await startTestWorker();
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  const options = {
    client,
    agents: [testAgent],
    startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    onError: () => {},
  };
  open = await serve(createCairnHttpHandler(options));
  guarded = await serve(createCairnHttpHandler({ ...options, authorize: bearerToken(TOKEN) }));
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await w?.stop();
});

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

async function expectError(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, code: JSON.parse(text).error?.code }).toEqual({ status, code });
  expect(text).not.toMatch(/\n\s+at /); // no stack trace
}

describe('bad requests to the HTTP handler', () => {
  it('get the right status and leave the run untouched; one of a thousand concurrent answers is taken', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-7' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-7', window: 'morning' }),
      scriptStep.call('wire_transfer', { account: 'DE00 1234', amount: 500 }),
      scriptStep.text('Redelivered and wired.'),
    ]));
    const threadId = `bad-${randomUUID()}`;
    const started = await fetch(
      `${open.url}/runs`,
      json({ agent: 'test', prompt: 'Redeliver A-7, wire 500.', threadId }),
    );
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    // Starting the thread again is a no-op: the same run.
    expect(
      await (await fetch(`${open.url}/runs`, json({ agent: 'test', prompt: 'again', threadId }))).json(),
    ).toMatchObject({ runId });
    const handle = w.client.workflow.getHandle(runId);
    const asked = await awaiting(handle, 'awaiting_clarification');
    const base = `${open.url}/runs/${encodeURIComponent(runId)}`;

    await expectError(await fetch(`${base}/answer`, json('{"answer": "morn')), 400, 'malformed_json');
    await expectError(
      await fetch(`${base}/answer`, json({ answer: 'x'.repeat(10 * 1024 * 1024) })),
      413,
      'body_too_large',
    );
    await expectError(
      await fetch(`${base}/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'answer=morning',
      }),
      415,
      'unsupported_media_type',
    );
    await expectError(await fetch(`${open.url}/runs/no-such-run`), 404, 'unknown_run');
    await expectError(
      await fetch(`${open.url}/runs/no-such-run/answer`, json({ answer: 'morning' })),
      404,
      'unknown_run',
    );
    await expectError(await fetch(`${base}/answer`, json({ answer: '   ' })), 422, 'invalid_input');
    await expectError(
      await fetch(`${base}/answer`, json({ answer: 'morning', questionId: 'q-other' })),
      409,
      'not_pending',
    );
    await expectError(await fetch(`${open.url}/runs`, json({ agent: 'nobody', prompt: 'x' })), 422, 'unknown_agent');
    await expectError(await fetch(`${open.url}/nowhere`), 404, 'not_found');
    // A wrong or missing token: 401, nothing sent to the run.
    const guardedBase = `${guarded.url}/runs/${encodeURIComponent(runId)}`;
    await expectError(
      await fetch(`${guardedBase}/answer`, json({ answer: 'morning' }, { authorization: 'Bearer wrong' })),
      401,
      'unauthorized',
    );
    await expectError(await fetch(`${guarded.url}/inbox`), 401, 'unauthorized');
    expect((await fetch(`${guarded.url}/inbox`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(await handle.query('state')).toMatchObject({
      phase: 'awaiting_clarification',
      clarification: { id: asked.clarification!.id },
    });

    // A thousand people answer at once: one answer is taken, the rest are refused (409) or told to wait (429).
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, () =>
        fetch(`${base}/answer`, json({ answer: 'morning' })).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { error: { code: string } },
        })),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200 && s !== 409 && s !== 429)).toEqual([]);
    for (const a of answers)
      if (a.status !== 200) expect(['not_pending', 'already_decided', 'busy']).toContain(a.body.error.code);

    // The review: a stale hash and a decision the tool does not allow are refused; accept goes through.
    const review = (await awaiting(handle, 'awaiting_review')).reviews[0]!;
    const reviewUrl = `${base}/reviews/${encodeURIComponent(review.toolCallId)}`;
    await expectError(
      await fetch(reviewUrl, json({ argsHash: 'stale', decision: { type: 'accept' } })),
      409,
      'stale_review',
    );
    await expectError(
      await fetch(
        reviewUrl,
        json({ argsHash: review.argsHash, decision: { type: 'edit', args: { account: 'X', amount: 1 } } }),
      ),
      422,
      'invalid_input',
    );
    await expectError(
      await fetch(reviewUrl, json({ argsHash: review.argsHash, decision: { type: 'maybe' } })),
      422,
      'invalid_input',
    );
    await expectError(await fetch(`${base}/reviews/9.9`, json({ decision: { type: 'accept' } })), 409, 'not_pending');
    const wiresBefore = calls.wire_transfer ?? 0;
    expect((await fetch(reviewUrl, json({ argsHash: review.argsHash, decision: { type: 'accept' } }))).status).toBe(
      200,
    );

    expect(await handle.result()).toMatchObject({ answer: 'Redelivered and wired.' });
    expect(calls.wire_transfer! - wiresBefore).toBe(1);
    const humans = ((await handle.fetchHistory()).events ?? []).filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'answerClarification',
    );
    expect(humans).toHaveLength(1);
    await expectError(await fetch(`${base}/cancel`, json({})), 409, 'run_closed');
  });
});
