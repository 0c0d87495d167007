/**
 * Live conversation over the HTTP handler, on a real dev server with a scripted streaming model:
 * the real `@ag-ui/client` HttpAgent and `ai`'s readUIMessageStream get the first text delta
 * while the model call is still held open (by order: the call cannot complete before the client
 * has it); the final message is what the deltas add up to, never text twice; a call that dies
 * mid-stream and is retried leaves no stale text in the final message. `POST /runs/:id/messages`
 * answers each outcome of `run.send` with its status, and an AG-UI request with a new user
 * message on a working thread hands it to the run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import {
  assistantTexts,
  chat,
  expectAguiDeltasWhileHeld,
  expectAguiResetThenWhole,
  expectUiResetThenWhole,
  REPLY,
  streamingModels,
  uiTexts as texts,
  userMessage,
} from './support/live-deltas.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const live = streamingModels({
  aguiHeld: [scriptStep.text(REPLY)],
  aguiDies: [scriptStep.text(REPLY), scriptStep.text(REPLY)],
  aguiSend: [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Both checked.')],
  uiHeld: [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text(REPLY)],
  uiDies: [scriptStep.text(REPLY), scriptStep.text(REPLY)],
  uiResume: [scriptStep.text(REPLY)],
  uiSend: [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Both checked.')],
  restSend: [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Done.')],
  restBusy: [scriptStep.text('Done.')],
});

let w: TestWorker;
let served: Served;
let throttled: Served;

beforeAll(async () => {
  w = await startTestWorker({ models: live.models, activityOptions: { modelActivity: { streaming: true } } });
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  const options = {
    client,
    agents: [testAgent],
    startOptions: () => ({ model: live.model, temporal: { workflowExecutionTimeout: '2m' } }),
  };
  served = await serve(createCairnHttpHandler(options));
  // No acts on a run at all: every message is throttled (429), as one over the bound would be.
  throttled = await serve(createCairnHttpHandler({ ...options, maxInFlightPerRun: 0 }));
});
afterAll(async () => {
  await served?.close();
  await throttled?.close();
  await w?.stop();
});

/** Resolves once the run (started, or about to be) has published its first delta. */
async function firstDelta(run: AgentRunHandle): Promise<void> {
  for (;;) {
    try {
      for await (const event of run.events()) if (event.type === 'model_delta') return;
    } catch (error) {
      if ((error as Error).name !== 'WorkflowNotFoundError') throw error;
      await new Promise((resolve) => setImmediate(resolve)); // not started yet
    }
  }
}

describe('AG-UI: live deltas', () => {
  it('the first delta reaches the client while the model call is held; the final message is the deltas, once', async () => {
    await expectAguiDeltasWhileHeld(served.url, live.hold('aguiHeld'));
  });

  it('a call that dies mid-stream: the stale message ends and is named by cairn.reset; the retry is a fresh message, whole', async () => {
    live.dieOnce('aguiDies');
    await expectAguiResetThenWhole(served.url);
  });

  it('a new user message on a thread whose run works is handed to the run, and the window tells what followed', async () => {
    const held = live.hold('aguiSend');
    const threadId = `t-${randomUUID()}`;
    const first = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Check A-1001.' }],
    });
    const firstRun = first.runAgent();
    const run = new AgentRunHandle(w.client, `cairn-thread-${threadId}`);
    await firstDelta(run); // the run is in its first model call, held open
    const second = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [
        { id: 'u1', role: 'user', content: 'Check A-1001.' },
        { id: 'u2', role: 'user', content: 'Also check A-1002, please.' },
      ],
    });
    // The second window tells the message taken (while the call is held), then what followed.
    const told: BaseEvent[] = [];
    await second.runAgent(undefined, {
      onEvent: ({ event }) => {
        told.push(event);
        if (event.type === 'CUSTOM' && (event as unknown as { name: string }).name === 'cairn.human') held.release();
      },
    });
    await firstRun;
    const custom = (name: string) =>
      told.find((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === name);
    expect(custom('cairn.delivery')).toMatchObject({ value: { delivery: 'queued' } });
    expect(custom('cairn.human')).toMatchObject({
      value: { kind: 'message', detail: expect.stringContaining('A-1002') },
    });
    expect((await run.state()).steps.some((s) => s.action === 'message' && s.detail.includes('A-1002'))).toBe(true);
    expect(assistantTexts(second.messages)).toContain('Both checked.');
    expect((await run.result()).answer).toBe('Both checked.');
  });
});

describe('AI SDK UI stream: live deltas', () => {
  it('text and tool input stream while the call is held; the final message is the deltas, once, with one tool part', async () => {
    // Both calls are held after their first piece: the tool call until the client has its input
    // streaming, the answer until it has text. Neither can complete before the client saw it, however busy the machine.
    const gate = () => {
      let resolve!: () => void;
      return { promise: new Promise<void>((r) => (resolve = r)), resolve: () => resolve() };
    };
    const gates = [gate(), gate()] as const;
    live.use('uiHeld', { before: (i, context) => (i === 1 ? gates[context.step]?.promise : undefined) });
    let textWhileHeld = false;
    let toolInputStreamed = false;
    let textReleased = false;
    const last = await chat(served.url, `c-${randomUUID()}`, 'Where is A-1001?', (message) => {
      if (!toolInputStreamed && message.parts.some((p) => p.type === 'dynamic-tool' && p.state === 'input-streaming')) {
        toolInputStreamed = true; // the first call cannot complete before this
        gates[0].resolve();
      }
      if (!textReleased && texts(message).some((t) => t.length > 0)) {
        textWhileHeld = true; // the second call cannot complete before this: it waits for the gate
        textReleased = true;
        gates[1].resolve();
      }
    });
    expect(textWhileHeld).toBe(true);
    expect(toolInputStreamed).toBe(true);
    expect(texts(last)).toEqual([REPLY]);
    const tools = last.parts.filter((p) => p.type === 'dynamic-tool');
    expect(tools).toEqual([
      expect.objectContaining({ toolName: 'lookup_order', state: 'output-available', input: { orderId: 'A-1001' } }),
    ]);
  });

  it('a new user message on a chat whose run works is handed to the run, and the stream tells what followed', async () => {
    const held = live.hold('uiSend');
    const chatId = `c-${randomUUID()}`;
    const opening = userMessage('Check A-1001.');
    const firstChat = chat(served.url, chatId, [opening]);
    const run = new AgentRunHandle(w.client, `cairn-thread-${chatId}`);
    await firstDelta(run); // the run is in its first model call, held open
    let told = false;
    const last = await chat(served.url, chatId, [opening, userMessage('Also check A-1002, please.')], (message) => {
      if (!told && message.parts.some((p) => p.type === 'data-cairn-human')) {
        told = true; // taken while the call is held: release it
        held.release();
      }
    });
    await firstChat;
    expect(told).toBe(true);
    expect(texts(last)).toContain('Both checked.');
    expect((await run.state()).steps.some((s) => s.action === 'message' && s.detail.includes('A-1002'))).toBe(true);
    expect((await run.result()).answer).toBe('Both checked.');
  });

  it("useChat's resume: a reload mid-turn gets the response again from its start, once; after the run finished, its last response again", async () => {
    const held = live.hold('uiResume');
    const chatId = `c-${randomUUID()}`;
    const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
    expect(await transport.reconnectToStream({ chatId })).toBeNull(); // no run yet
    // The page loads, sends, and is reloaded while the model call is held: its stream is dropped.
    const gone = new AbortController();
    const first = await transport.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      messages: [userMessage('Where is A-1001?')],
      abortSignal: gone.signal,
    });
    await firstDelta(new AgentRunHandle(w.client, `cairn-thread-${chatId}`));
    gone.abort();
    await first.cancel().catch(() => {});
    const resumed = await transport.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream<UIMessage>({ stream: resumed!, terminateOnError: true })) {
      if (!held.released && texts(message).some((t) => t.length > 0)) held.release(); // the replay has the text so far
      last = message;
    }
    expect(held.released).toBe(true);
    expect(texts(last!)).toEqual([REPLY]);
    // Finished: a client that lost the end gets the whole last response again (a replay), the answer once.
    const after = await transport.reconnectToStream({ chatId });
    let replayed: UIMessage | undefined;
    for await (const message of readUIMessageStream<UIMessage>({ stream: after!, terminateOnError: true }))
      replayed = message;
    expect(texts(replayed!)).toEqual([REPLY]);
  });

  it('a call that dies mid-stream: reset-step takes the stale text out, the final message is the retry alone', async () => {
    live.dieOnce('uiDies');
    await expectUiResetThenWhole(served.url);
  });
});

describe('POST /runs/:id/messages', () => {
  const post = (base: string, runId: string, body: unknown) =>
    fetch(`${base}/runs/${encodeURIComponent(runId)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function heldRun(name: 'restSend' | 'restBusy', policy?: { onMessage: 'reject' }) {
    const held = live.hold(name);
    const handle = await w.start({
      agent: 'test',
      prompt: 'Check A-1001.',
      model: live.model,
      ...(policy && { policy }),
    });
    await firstDelta(new AgentRunHandle(w.client, handle.workflowId));
    return { held, handle };
  }

  it('accepted 202, invalid 400/422, throttled 429, unknown run 404, finished 409', async () => {
    const { held, handle } = await heldRun('restSend');
    const accepted = await post(served.url, handle.workflowId, { text: 'Also check A-1002, please.' });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({
      runId: handle.workflowId,
      messageId: expect.any(String),
      delivery: 'queued',
    });

    const bodies = async (r: Response) => [r.status, ((await r.json()) as { error: { code: string } }).error.code];
    expect(await bodies(await post(served.url, handle.workflowId, ['text']))).toEqual([400, 'invalid_request']);
    expect(await bodies(await post(served.url, handle.workflowId, { text: '  ' }))).toEqual([422, 'invalid_input']);
    expect(await bodies(await post(served.url, handle.workflowId, { text: 'x', updateId: 7 }))).toEqual([
      422,
      'invalid_input',
    ]);
    const busy = await post(throttled.url, handle.workflowId, { text: 'Hello?' });
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await bodies(busy)).toEqual([429, 'busy']);
    expect(await bodies(await post(served.url, `test-${randomUUID()}`, { text: 'Hello?' }))).toEqual([
      404,
      'unknown_run',
    ]);

    held.release();
    expect((await handle.result()).answer).toBe('Done.');
    expect(await bodies(await post(served.url, handle.workflowId, { text: 'Too late.' }))).toEqual([409, 'run_closed']);
  });

  it('refused by the run while it works (onMessage: reject): 409 run_busy', async () => {
    const { held, handle } = await heldRun('restBusy', { onMessage: 'reject' });
    const refused = await post(served.url, handle.workflowId, { text: 'Hello?' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('run_busy');
    held.release();
    expect((await handle.result()).answer).toBe('Done.');
  });
});
