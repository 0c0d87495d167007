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
import { redisTransport } from '../activities/live/redis-transport.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { redisLiveSource } from '../client/redis-live-source.js';
import { STREAM_PUBLISH_SIGNAL, STREAM_PUBLISH_UPDATE } from '../shared/live/model-delta.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import {
  chat,
  expectAguiDeltasWhileHeld,
  expectAguiResetThenWhole,
  expectUiResetThenWhole,
  REPLY,
  streamingModels,
  uiTexts as texts,
} from './support/live-deltas.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { probeRedis, REDIS_URL } from './support/redis.js';

const unreachable = await probeRedis(REDIS_URL);
if (unreachable)
  console.warn(`test/http-live-redis.test.ts skipped: Redis is not reachable at ${REDIS_URL} (${unreachable}).`);

const AGAIN = 'A-1002 is packed and leaves the warehouse tomorrow morning.';
const live = streamingModels({
  aguiHeld: [scriptStep.text(REPLY)],
  aguiDies: [scriptStep.text(REPLY), scriptStep.text(REPLY)],
  uiHeld: [scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text(REPLY)],
  uiDies: [scriptStep.text(REPLY), scriptStep.text(REPLY)],
  uiAgain: [scriptStep.text(REPLY), scriptStep.text(AGAIN)],
});

describe.skipIf(unreachable !== undefined)('HTTP handler: live deltas through Redis', () => {
  const keyPrefix = `cairn:test:${randomUUID().slice(0, 8)}:`;
  const redis = createClient({ url: REDIS_URL });
  let w: TestWorker;
  let served: Served;

  beforeAll(async () => {
    await redis.connect();
    w = await startTestWorker({
      models: live.models,
      activityOptions: { modelActivity: { streaming: redisTransport({ url: REDIS_URL, keyPrefix }) } },
    });
    const client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
    served = await serve(
      createCairnHttpHandler({
        client,
        agents: [testAgent],
        live: redisLiveSource({ url: REDIS_URL, keyPrefix }),
        startOptions: () => ({ model: live.model, temporal: { workflowExecutionTimeout: '2m' } }),
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
      const threadId = `t-${randomUUID()}`;
      await expectAguiDeltasWhileHeld(served.url, live.hold('aguiHeld'), threadId);
      await expectNoPublishes(`cairn-thread-${threadId}`);
    });

    it('a call that dies mid-stream: cairn.reset names the stale message; the retry is the final message, whole', async () => {
      live.dieOnce('aguiDies');
      await expectAguiResetThenWhole(served.url);
    });
  });

  describe('AI SDK UI stream', () => {
    it('text streams while the call is held; the final message is the deltas, once, with one tool part', async () => {
      const held = live.hold('uiHeld', 1);
      const chatId = `c-${randomUUID()}`;
      let textWhileHeld = false;
      const last = await chat(served.url, chatId, 'Where is A-1001?', (message) => {
        if (!held.released && texts(message).some((t) => t.length > 0)) {
          textWhileHeld = true; // the second call cannot complete before this: it waits for release()
          held.release();
        }
      });
      expect(textWhileHeld).toBe(true);
      expect(texts(last)).toEqual([REPLY]);
      expect(last.parts.filter((p) => p.type === 'dynamic-tool')).toEqual([
        expect.objectContaining({ toolName: 'lookup_order', state: 'output-available', input: { orderId: 'A-1001' } }),
      ]);
      await expectNoPublishes(`cairn-thread-${chatId}`);
    });

    it('a call that dies mid-stream: reset-step takes the stale text out, the final message is the retry alone', async () => {
      live.dieOnce('uiDies');
      await expectUiResetThenWhole(served.url);
    });

    it("a thread's next run streams its own reply: the deltas its earlier run left in Redis are not replayed", async () => {
      live.use('uiAgain');
      const chatId = `c-${randomUUID()}`;
      expect(texts(await chat(served.url, chatId, 'Where is A-1001?'))).toEqual([REPLY]);
      await w.client.workflow.getHandle(`cairn-thread-${chatId}`).result(); // finished: the next request starts a new run
      // Its model:1:1 deltas are still in the stream, and the next run's first call has the same id.
      const seen: string[] = [];
      const last = await chat(served.url, chatId, 'And A-1002?', (message) => seen.push(...texts(message)));
      expect(seen.some((t) => t.includes('A-1001'))).toBe(false);
      expect(seen.some((t) => t.length > 0 && t.length < AGAIN.length)).toBe(true); // it streamed
      expect(texts(last)).toEqual([AGAIN]);
    });
  });
});
