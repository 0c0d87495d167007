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
import { EventType, HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { ModelServerError } from '../activities/model/model-errors.js';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../client/http/cairn-http-handler.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import type { ScriptedStreaming } from '../testing/scripted-streaming.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';
/** Each model's streaming hooks, set by its test (the worker copies the model registry at start). */
const hooks = new Map<string, ScriptedStreaming>();
const streamed = (name: string, script: Script) => new ScriptedModel(name, script, { streaming: { pieces: 10, before: (i, context) => hooks.get(name)?.before?.(i, context) } });
const diesOnce: ScriptedStreaming = {
  before: (i, context) => {
    if (context.step === 0 && i === 4) throw new ModelServerError('The connection dropped mid-stream.', 502);
  },
};
const models = {
  aguiHeld: streamed('aguiHeld', [scriptStep.text(REPLY)]),
  aguiDies: streamed('aguiDies', [scriptStep.text(REPLY), scriptStep.text(REPLY)]),
  aguiSend: streamed('aguiSend', [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Both checked.')]),
  uiHeld: streamed('uiHeld', [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text(REPLY)]),
  uiDies: streamed('uiDies', [scriptStep.text(REPLY), scriptStep.text(REPLY)]),
  uiResume: streamed('uiResume', [scriptStep.text(REPLY)]),
  uiSend: streamed('uiSend', [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Both checked.')]),
  restSend: streamed('restSend', [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text('Done.')]),
  restBusy: streamed('restBusy', [scriptStep.text('Done.')]),
};

let w: TestWorker;
let served: Served;
let throttled: Served;
let model = '';

beforeAll(async () => {
  w = await startTestWorker({ models, activityOptions: { modelActivity: { streaming: true } } });
  const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  const options = { client, agents: [testAgent], startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }) };
  served = await serve(createCairnHttpHandler(options));
  // No acts on a run at all: every message is throttled (429), as one over the bound would be.
  throttled = await serve(createCairnHttpHandler({ ...options, maxInFlightPerRun: 0 }));
});
afterAll(async () => {
  await served?.close();
  await throttled?.close();
  await w?.stop();
});

/** A hold: the model waits before piece 1 until `release()`; `released` says whether it has. */
function hold(name: keyof typeof models, step = 0) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = { released: false, release: () => ((h.released = true), release()) };
  hooks.set(name, { before: (i, context) => (context.step === step && i === 1 ? gate : undefined) });
  model = `scripted:${name}`;
  return h;
}

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

const assistantTexts = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' && m.content ? [m.content] : []));

describe('AG-UI: live deltas', () => {
  it('the first delta reaches the client while the model call is held; the final message is the deltas, once', async () => {
    const held = hold('aguiHeld');
    const agent = new HttpAgent({ url: `${served.url}/agui`, threadId: `t-${randomUUID()}`, initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }] });
    const events: BaseEvent[] = [];
    let contentWhileHeld = false;
    await agent.runAgent(undefined, {
      onEvent: ({ event }) => {
        events.push(event);
        if (event.type === 'TEXT_MESSAGE_CONTENT' && !held.released) {
          contentWhileHeld = true; // the call cannot complete before this: it waits for release()
          held.release();
        }
      },
    });
    expect(contentWhileHeld).toBe(true);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(types.indexOf(EventType.TEXT_MESSAGE_START)).toBeLessThan(types.indexOf(EventType.TEXT_MESSAGE_CONTENT));
    expect(types.at(-1)).toBe('RUN_FINISHED');
    const deltas = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as unknown as { delta: string }).delta);
    expect(deltas.join('')).toBe(REPLY);
    // The streamed turn was the final answer: `finish` did not send it again.
    expect(assistantTexts(agent.messages)).toEqual([REPLY]);
  });

  it('a call that dies mid-stream: the stale message ends and is named by cairn.reset; the retry is a fresh message, whole', async () => {
    hooks.set('aguiDies', diesOnce);
    model = 'scripted:aguiDies';
    const agent = new HttpAgent({ url: `${served.url}/agui`, threadId: `t-${randomUUID()}`, initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }] });
    const events: BaseEvent[] = [];
    await agent.runAgent(undefined, { onEvent: ({ event }) => void events.push(event) });
    const resets = events.filter((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'cairn.reset');
    expect(resets).toHaveLength(1);
    const stale = (resets[0] as unknown as { value: { messageId: string } }).value.messageId;
    const texts = assistantTexts(agent.messages);
    const partial = agent.messages.find((m) => m.id === stale)!.content as string;
    expect(REPLY.startsWith(partial) && partial.length < REPLY.length).toBe(true);
    // The final message is the retry's deltas alone; dropping what cairn.reset names leaves no stale text.
    expect(texts.at(-1)).toBe(REPLY);
    expect(assistantTexts(agent.messages.filter((m) => m.id !== stale))).toEqual([REPLY]);
  });

  it('a new user message on a thread whose run works is handed to the run, and the window tells what followed', async () => {
    const held = hold('aguiSend');
    const threadId = `t-${randomUUID()}`;
    const first = new HttpAgent({ url: `${served.url}/agui`, threadId, initialMessages: [{ id: 'u1', role: 'user', content: 'Check A-1001.' }] });
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
    expect(told.find((e) => e.type === 'CUSTOM')).toMatchObject({ name: 'cairn.human', value: { kind: 'message', detail: expect.stringContaining('A-1002') } });
    expect((await run.state()).steps.some((s) => s.action === 'message' && s.detail.includes('A-1002'))).toBe(true);
    expect(assistantTexts(second.messages)).toContain('Both checked.');
    expect((await run.result()).answer).toBe('Both checked.');
  });
});

describe('AI SDK UI stream: live deltas', () => {
  const userMessage = (text: string): UIMessage => ({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] });
  async function chat(chatId: string, text: string | UIMessage[], onMessage: (m: UIMessage) => void = () => {}): Promise<UIMessage> {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
    const messages: UIMessage[] = typeof text === 'string' ? [userMessage(text)] : text;
    const stream = await transport.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages, abortSignal: undefined });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) {
      onMessage(message);
      last = message;
    }
    return last!;
  }
  const texts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));

  it('text and tool input stream while the call is held; the final message is the deltas, once, with one tool part', async () => {
    const held = hold('uiHeld', 1);
    let textWhileHeld = false;
    let toolInputStreamed = false;
    const last = await chat(`c-${randomUUID()}`, 'Where is A-1001?', (message) => {
      if (message.parts.some((p) => p.type === 'dynamic-tool' && p.state === 'input-streaming')) toolInputStreamed = true;
      if (!held.released && texts(message).some((t) => t.length > 0)) {
        textWhileHeld = true; // the second call cannot complete before this: it waits for release()
        held.release();
      }
    });
    expect(textWhileHeld).toBe(true);
    expect(toolInputStreamed).toBe(true);
    expect(texts(last)).toEqual([REPLY]);
    const tools = last.parts.filter((p) => p.type === 'dynamic-tool');
    expect(tools).toEqual([expect.objectContaining({ toolName: 'lookup_order', state: 'output-available', input: { orderId: 'A-1001' } })]);
  });

  it('a new user message on a chat whose run works is handed to the run, and the stream tells what followed', async () => {
    const held = hold('uiSend');
    const chatId = `c-${randomUUID()}`;
    const opening = userMessage('Check A-1001.');
    const firstChat = chat(chatId, [opening]);
    const run = new AgentRunHandle(w.client, `cairn-thread-${chatId}`);
    await firstDelta(run); // the run is in its first model call, held open
    let told = false;
    const last = await chat(chatId, [opening, userMessage('Also check A-1002, please.')], (message) => {
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

  it("useChat's resume: a reload mid-turn gets the response again from its start, once; 204 when nothing is under way", async () => {
    const held = hold('uiResume');
    const chatId = `c-${randomUUID()}`;
    const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
    expect(await transport.reconnectToStream({ chatId })).toBeNull(); // no run yet
    // The page loads, sends, and is reloaded while the model call is held: its stream is dropped.
    const gone = new AbortController();
    const first = await transport.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages: [userMessage('Where is A-1001?')], abortSignal: gone.signal });
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
    expect(await transport.reconnectToStream({ chatId })).toBeNull(); // finished
  });

  it('a call that dies mid-stream: reset-step takes the stale text out, the final message is the retry alone', async () => {
    hooks.set('uiDies', diesOnce);
    model = 'scripted:uiDies';
    let sawPartial = false;
    const last = await chat(`c-${randomUUID()}`, 'Where is A-1001?', (message) => {
      if (texts(message).some((t) => t.length > 0 && t.length < REPLY.length)) sawPartial = true;
    });
    expect(sawPartial).toBe(true);
    expect(texts(last)).toEqual([REPLY]);
  });
});

describe('POST /runs/:id/messages', () => {
  const post = (base: string, runId: string, body: unknown) =>
    fetch(`${base}/runs/${encodeURIComponent(runId)}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function heldRun(name: 'restSend' | 'restBusy', policy?: { onMessage: 'reject' }) {
    const held = hold(name);
    const handle = await w.start({ agent: 'test', prompt: 'Check A-1001.', model, ...(policy && { policy }) });
    await firstDelta(new AgentRunHandle(w.client, handle.workflowId));
    return { held, handle };
  }

  it('accepted 202, invalid 400/422, throttled 429, unknown run 404, finished 409', async () => {
    const { held, handle } = await heldRun('restSend');
    const accepted = await post(served.url, handle.workflowId, { text: 'Also check A-1002, please.' });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ runId: handle.workflowId, messageId: expect.any(String), delivery: 'queued' });

    const bodies = async (r: Response) => [r.status, ((await r.json()) as { error: { code: string } }).error.code];
    expect(await bodies(await post(served.url, handle.workflowId, ['text']))).toEqual([400, 'invalid_request']);
    expect(await bodies(await post(served.url, handle.workflowId, { text: '  ' }))).toEqual([422, 'invalid_input']);
    expect(await bodies(await post(served.url, handle.workflowId, { text: 'x', updateId: 7 }))).toEqual([422, 'invalid_input']);
    const busy = await post(throttled.url, handle.workflowId, { text: 'Hello?' });
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await bodies(busy)).toEqual([429, 'busy']);
    expect(await bodies(await post(served.url, `test-${randomUUID()}`, { text: 'Hello?' }))).toEqual([404, 'unknown_run']);

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
