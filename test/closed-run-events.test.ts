/**
 * A finished run's events with no worker: a run completes, EVERY worker stops, and its events are
 * still whole — `GET /runs/:id/events` from 0 and resumed with `Last-Event-ID` mid-way (an
 * `EventSource`'s reconnect), the typed client's `events()`, and `useChat`'s resume
 * (`GET /chat/:id/stream`, through the AI SDK's own transport) with the final answer. 204 only for
 * a client that read past the last event. The events come from the run's result in history.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import type { Client } from '@temporalio/client';
import { CairnClient } from '../client/cairn-client.js';
import type { RunEventItem } from '../client/run-events.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { TestChat } from './support/chat.js';
import { serve, sseMessages, type Served, type SseMessage } from './support/http.js';
import { connectClient, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let stopped = false;
/** The server's own connection: it outlives the worker's. */
let own: Client;
let client: CairnClient;
let http: Served;
let model = '';

beforeAll(async () => {
  [w, own] = await Promise.all([startTestWorker(), connectClient()]);
  client = new CairnClient({ client: own, taskQueue: w.taskQueue });
  http = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
    }),
  );
});
afterAll(async () => {
  await http?.close();
  if (!stopped) await w?.stop();
  await own?.connection.close();
});

const ANSWER = 'A-7 shipped; 20 refunded on A-8.';

/** Every SSE frame of a response, to its end. */
async function frames(response: Response): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of sseMessages(response)) out.push(m);
  return out;
}

describe("a finished run's events with every worker stopped", () => {
  it('are whole over SSE from 0 and from Last-Event-ID, by the typed client, and in the chat resume; 204 only past the end', async () => {
    // A run of several steps, and a chat thread, both finished while the worker runs.
    const steps = () => [
      scriptStep.call('lookup_order', { orderId: 'A-7' }),
      scriptStep.call('issue_refund', { orderId: 'A-8', amount: 20 }),
      scriptStep.text(ANSWER),
    ];
    const typed = await client.start({
      agent: 'test',
      prompt: 'A-7 and a refund on A-8.',
      model: w.script(steps()).model,
    });
    expect((await typed.result()).answer).toBe(ANSWER);
    const expected: RunEventItem[] = [];
    for await (const event of typed.events()) expected.push(event);
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(expected.at(-1)).toMatchObject({ type: 'finish', answer: ANSWER });

    const chatId = `closed-${randomUUID()}`;
    model = w.script(steps()).model;
    const chat = new TestChat({
      id: chatId,
      transport: new DefaultChatTransport<UIMessage>({ api: `${http.url}/chat` }),
    });
    await chat.sendMessage({ text: 'A-7 and a refund on A-8, please.' });
    await chat.settled();
    expect(chat.status, chat.error?.message).toBe('ready');
    expect((await own.workflow.getHandle(`cairn-thread-${chatId}`).describe()).status.name).toBe('COMPLETED');

    // Every worker stops: nothing can replay the runs now.
    await w.stop();
    stopped = true;

    const url = `${http.url}/runs/${encodeURIComponent(typed.workflowId)}/events`;
    const fromZero = await fetch(`${url}?from=0`);
    expect(fromZero.status).toBe(200);
    const all = await frames(fromZero);
    expect(all.at(-1)?.event).toBe('end');
    const events = all.filter((m) => m.event === undefined);
    expect(events.map((m) => Number(m.id))).toEqual(expected.map((e) => e.offset));
    expect(events.map((m) => JSON.parse(m.data))).toEqual(expected);

    // An EventSource's reconnect mid-way: the rest, the finish and its answer among them.
    const mid = expected[Math.floor(expected.length / 2)]!.offset;
    const resumed = await fetch(url, { headers: { 'last-event-id': String(mid) } });
    expect(resumed.status).toBe(200);
    const rest = (await frames(resumed)).filter((m) => m.event === undefined);
    expect(rest.map((m) => Number(m.id))).toEqual(expected.filter((e) => e.offset > mid).map((e) => e.offset));
    expect(JSON.parse(rest.at(-1)!.data)).toMatchObject({ type: 'finish', answer: ANSWER });

    // Read past the last event: now, and only now, 204.
    const past = await fetch(url, { headers: { 'last-event-id': String(expected.at(-1)!.offset) } });
    expect(past.status).toBe(204);

    // The typed client, from an offset.
    const typedRest: RunEventItem[] = [];
    for await (const event of client.run(typed.workflowId).events({ from: mid + 1 })) typedRest.push(event);
    expect(typedRest).toEqual(expected.filter((e) => e.offset > mid));

    // useChat's resume after a reload: the latest assistant message again, final answer included.
    const transport = new DefaultChatTransport<UIMessage>({ api: `${http.url}/chat` });
    const stream = await transport.reconnectToStream({ chatId });
    expect(stream, 'the chat resume answered 204').not.toBeNull();
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream<UIMessage>({ stream: stream!, terminateOnError: true })) message = m;
    const texts = message!.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(texts.join('')).toContain(ANSWER);
    const tools = message!.parts.filter((p) => p.type === 'dynamic-tool') as unknown as { state: string }[];
    expect(tools.map((p) => p.state)).toEqual(['output-available', 'output-available']);
  });
});
