/**
 * Live deltas through Redis over the HTTP handler: a scripted streaming model on a real dev server
 * whose worker streams with `redisTransport`, a handler given `live: redisLiveSource(...)`, and the
 * real `@ag-ui/client` HttpAgent and `ai`'s readUIMessageStream. The first text delta reaches the
 * client while the model call is held open (by order: the call cannot complete before the client
 * has it); the final message is what the deltas add up to, once; a call that dies mid-stream and
 * is retried leaves no stale text; a thread's next run does not replay the deltas its earlier run
 * left in Redis; and the run's history holds no publish Updates. Needs Redis at REDIS_URL (default
 * redis://127.0.0.1:6379): skipped, saying so, when there is none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { ModelServerError } from '../activities/model/model-errors.js';
import { redisTransport } from '../activities/live/redis-transport.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../client/http/cairn-http-handler.js';
import { redisLiveSource } from '../client/redis-live-source.js';
import { STREAM_PUBLISH_SIGNAL, STREAM_PUBLISH_UPDATE } from '../shared/live/model-delta.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import type { ScriptedStreaming } from '../testing/scripted-streaming.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { probeRedis, REDIS_URL } from './support/redis.js';

const unreachable = await probeRedis(REDIS_URL);
if (unreachable) console.warn(`test/http-live-redis.test.ts skipped: Redis is not reachable at ${REDIS_URL} (${unreachable}).`);

const REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';
const AGAIN = 'A-1002 is packed and leaves the warehouse tomorrow morning.';
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
  uiHeld: streamed('uiHeld', [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text(REPLY)]),
  uiDies: streamed('uiDies', [scriptStep.text(REPLY), scriptStep.text(REPLY)]),
  uiAgain: streamed('uiAgain', [scriptStep.text(REPLY), scriptStep.text(AGAIN)]),
};

/** A hold: the model waits before piece 1 of call `step` until `release()`; `released` says whether it has. */
function hold(name: keyof typeof models, step = 0) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = { released: false, release: () => ((h.released = true), release()) };
  hooks.set(name, { before: (i, context) => (context.step === step && i === 1 ? gate : undefined) });
  model = `scripted:${name}`;
  return h;
}

let model = '';
const assistantTexts = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' && m.content ? [m.content] : []));

describe.skipIf(unreachable !== undefined)('HTTP handler: live deltas through Redis', () => {
  const keyPrefix = `cairn:test:${randomUUID().slice(0, 8)}:`;
  const redis = createClient({ url: REDIS_URL });
  let w: TestWorker;
  let served: Served;

  beforeAll(async () => {
    await redis.connect();
    w = await startTestWorker({ models, activityOptions: { modelActivity: { streaming: redisTransport({ url: REDIS_URL, keyPrefix }) } } });
    const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
    served = await serve(
      createCairnHttpHandler({
        client,
        agents: [testAgent],
        live: redisLiveSource({ url: REDIS_URL, keyPrefix }),
        startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
      }),
    );
  });
  afterAll(async () => {
    await served?.close();
    await w?.stop();
    for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
    redis.destroy();
  });

  /** The run's history: it holds no publish Update or Signal (the deltas went to Redis), and Redis does hold them. */
  async function expectNoPublishes(workflowId: string): Promise<void> {
    const events = (await w.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const publishes = events.filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === STREAM_PUBLISH_UPDATE ||
        e.workflowExecutionSignaledEventAttributes?.signalName === STREAM_PUBLISH_SIGNAL,
    );
    expect(publishes).toEqual([]);
    expect(await redis.xLen(`${keyPrefix}${workflowId}`)).toBeGreaterThan(0);
  }

  describe('AG-UI', () => {
    it('the first delta reaches the client while the model call is held; the final message is the deltas, once', async () => {
      const held = hold('aguiHeld');
      const threadId = `t-${randomUUID()}`;
      const agent = new HttpAgent({ url: `${served.url}/agui`, threadId, initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }] });
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
      expect(types.at(-1)).toBe('RUN_FINISHED');
      const deltas = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as unknown as { delta: string }).delta);
      expect(deltas.join('')).toBe(REPLY);
      expect(assistantTexts(agent.messages)).toEqual([REPLY]);
      await expectNoPublishes(`cairn-thread-${threadId}`);
    });

    it('a call that dies mid-stream: cairn.reset names the stale message; the retry is the final message, whole', async () => {
      hooks.set('aguiDies', diesOnce);
      model = 'scripted:aguiDies';
      const agent = new HttpAgent({ url: `${served.url}/agui`, threadId: `t-${randomUUID()}`, initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }] });
      const events: BaseEvent[] = [];
      await agent.runAgent(undefined, { onEvent: ({ event }) => void events.push(event) });
      const resets = events.filter((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'cairn.reset');
      expect(resets).toHaveLength(1);
      const stale = (resets[0] as unknown as { value: { messageId: string } }).value.messageId;
      const partial = agent.messages.find((m) => m.id === stale)!.content as string;
      expect(REPLY.startsWith(partial) && partial.length < REPLY.length).toBe(true);
      expect(assistantTexts(agent.messages).at(-1)).toBe(REPLY);
      expect(assistantTexts(agent.messages.filter((m) => m.id !== stale))).toEqual([REPLY]);
    });
  });

  describe('AI SDK UI stream', () => {
    const userMessage = (text: string): UIMessage => ({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] });
    async function chat(chatId: string, text: string, onMessage: (m: UIMessage) => void = () => {}): Promise<UIMessage> {
      const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
      const stream = await transport.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages: [userMessage(text)], abortSignal: undefined });
      let last: UIMessage | undefined;
      for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) {
        onMessage(message);
        last = message;
      }
      return last!;
    }
    const texts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));

    it('text streams while the call is held; the final message is the deltas, once, with one tool part', async () => {
      const held = hold('uiHeld', 1);
      const chatId = `c-${randomUUID()}`;
      let textWhileHeld = false;
      const last = await chat(chatId, 'Where is A-1001?', (message) => {
        if (!held.released && texts(message).some((t) => t.length > 0)) {
          textWhileHeld = true; // the second call cannot complete before this: it waits for release()
          held.release();
        }
      });
      expect(textWhileHeld).toBe(true);
      expect(texts(last)).toEqual([REPLY]);
      expect(last.parts.filter((p) => p.type === 'dynamic-tool')).toEqual([expect.objectContaining({ toolName: 'lookup_order', state: 'output-available', input: { orderId: 'A-1001' } })]);
      await expectNoPublishes(`cairn-thread-${chatId}`);
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

    it("a thread's next run streams its own reply: the deltas its earlier run left in Redis are not replayed", async () => {
      hooks.delete('uiAgain');
      model = 'scripted:uiAgain';
      const chatId = `c-${randomUUID()}`;
      expect(texts(await chat(chatId, 'Where is A-1001?'))).toEqual([REPLY]);
      await w.client.workflow.getHandle(`cairn-thread-${chatId}`).result(); // finished: the next request starts a new run
      // Its model:1:1 deltas are still in the stream, and the next run's first call has the same id.
      const seen: string[] = [];
      const last = await chat(chatId, 'And A-1002?', (message) => seen.push(...texts(message)));
      expect(seen.some((t) => t.includes('A-1001'))).toBe(false);
      expect(seen.some((t) => t.length > 0 && t.length < AGAIN.length)).toBe(true); // it streamed
      expect(texts(last)).toEqual([AGAIN]);
    });
  });
});
