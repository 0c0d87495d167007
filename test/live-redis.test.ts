/**
 * Model turns stream through Redis (the ephemeral transport): a scripted streaming model on a real
 * dev server, its deltas written to a real Redis by `redisTransport` and read by `redisLiveSource`.
 * The first delta reaches a subscriber while the model call is still held open; the deltas add up
 * to the recorded reply; a call that dies mid-stream is followed by a reset and the retry's whole
 * text; the run's history holds none of it (as many events as a run that does not stream); and a
 * Redis that cannot be reached, or goes away mid-turn behind a proxy the test cuts, drops the
 * deltas without failing the turn, and writing resumes once it is back. Needs Redis at
 * REDIS_URL (default redis://127.0.0.1:6379): skipped, saying so, when there is none (CI has one).
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { RunEventItem } from '../client/run-events.js';
import { ModelServerError } from '../activities/model/model-errors.js';
import { redisTransport } from '../activities/live/redis-transport.js';
import { redisLiveSource, type RedisLiveEvent } from '../client/redis-live-source.js';
import { mergeLive } from '../client/merge-live.js';
import { liveText } from '../servers/http/live-deltas.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import type { ScriptedStreaming } from '../testing/scripted-streaming.js';
import type { LiveEvent } from '../shared/live/model-delta.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { probeRedis, REDIS_URL } from './support/redis.js';
import { freePort } from './support/ports.js';

const unreachable = await probeRedis(REDIS_URL);
if (unreachable)
  console.warn(`test/live-redis.test.ts skipped: Redis is not reachable at ${REDIS_URL} (${unreachable}).`);

const REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';
/** Models by name, each handed the streaming its test sets when the run calls it. */
const streamings = new Map<string, ScriptedStreaming>();
const scripted = (name: string, script: ConstructorParameters<typeof ScriptedModel>[1]) =>
  new ScriptedModel(name, script, {
    streaming: { pieces: 10, before: (i, context) => streamings.get(name)?.before?.(i, context) },
  });

describe.skipIf(unreachable !== undefined)('ephemeral live deltas (Redis)', () => {
  const keyPrefix = `cairn:test:${randomUUID().slice(0, 8)}:`;
  const source = redisLiveSource({ url: REDIS_URL, keyPrefix });
  const redis = createClient({ url: REDIS_URL });
  const logged: string[] = [];
  let w: TestWorker;
  let off: TestWorker;
  let dead: TestWorker;
  beforeAll(async () => {
    await redis.connect();
    [w, off, dead] = await Promise.all([
      startTestWorker({
        models: {
          held: scripted('held', [scriptStep.text(REPLY)]),
          dies: scripted('dies', [scriptStep.text(REPLY), scriptStep.text(REPLY)]),
          quiet: scripted('quiet', [scriptStep.text(REPLY)]),
        },
        activityOptions: { modelActivity: { streaming: redisTransport({ url: REDIS_URL, keyPrefix }) } },
      }),
      startTestWorker({ models: { quiet: scripted('quiet-off', [scriptStep.text(REPLY)]) } }),
      freePort().then((port) =>
        startTestWorker({
          models: { quiet: scripted('quiet-dead', [scriptStep.text(REPLY)]) },
          activityOptions: {
            modelActivity: {
              streaming: redisTransport({
                url: `redis://127.0.0.1:${port}`,
                keyPrefix,
                timeoutMs: 300,
                log: (m) => logged.push(m),
              }),
            },
          },
        }),
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all([w?.stop(), off?.stop(), dead?.stop()]);
    for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
    redis.destroy();
  });

  /** Everything the run's stream keeps, read by a subscriber that connects after the run ended. */
  async function lateRead(workflowId: string): Promise<RedisLiveEvent[]> {
    const kept = await redis.xLen(`${keyPrefix}${workflowId}`);
    const stop = new AbortController();
    const events: RedisLiveEvent[] = [];
    for await (const event of source.subscribe(workflowId, { signal: stop.signal })) {
      events.push(event);
      if (events.length === kept) stop.abort();
    }
    return events;
  }

  it('the first delta reaches a subscriber while the model call is still open; the deltas add up to the recorded reply', async () => {
    let sawDelta!: () => void;
    const deltaSeen = new Promise<void>((resolve) => (sawDelta = resolve));
    // The model holds its second piece until the reader has the first: the call cannot complete before.
    streamings.set('held', { before: (i) => (i === 1 ? deltaSeen : undefined) });
    const workflowId = `test-${randomUUID()}`;
    const run = new AgentRunHandle(w.client, workflowId);
    const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model: 'scripted:held' }, workflowId);
    const merged: (RunEventItem | RedisLiveEvent)[] = [];
    for await (const event of mergeLive(run.events(), (signal) => source.subscribe(workflowId, { signal }))) {
      merged.push(event);
      if (event.type === 'model_delta') sawDelta();
    }
    expect((await handle.result()).answer).toBe(REPLY);

    const types = merged.map((e) => e.type);
    expect(types.indexOf('model_delta')).toBeGreaterThan(-1);
    expect(types.indexOf('model_delta')).toBeLessThan(types.indexOf('model_turn'));
    expect(types.at(-1)).toBe('finish');
    const recorded = merged.find((e) => e.type === 'model_turn') as RunEventItem & { text?: string };
    expect(recorded.text).toBe(REPLY);
    // A reader that connects after the turn still gets all of it, from the start of the stream.
    const late = await lateRead(workflowId);
    expect(late.every((e) => e.type === 'model_delta' && e.call === 'model:1:1' && e.attempt === 1)).toBe(true);
    expect(late.map((e) => (e as LiveEvent & { seq: number }).seq)).toEqual(late.map((_, i) => i + 1));
    expect(liveText(late).get('model:1:1')).toBe(REPLY);
    // And one that resumes after an entry gets only what followed it.
    const resumed: RedisLiveEvent[] = [];
    const stop = new AbortController();
    for await (const event of source.subscribe(workflowId, { signal: stop.signal, from: late[0]!.id })) {
      resumed.push(event);
      if (resumed.length === late.length - 1) stop.abort();
    }
    expect(resumed.map((e) => e.id)).toEqual(late.slice(1).map((e) => e.id));
  });

  it('a call that dies mid-stream: a reset, then the retry whole, never text twice', async () => {
    streamings.set('dies', {
      before: (i, context) => {
        if (context.step === 0 && i === 4) throw new ModelServerError('The connection dropped mid-stream.', 502);
      },
    });
    const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model: 'scripted:dies' });
    expect((await handle.result()).answer).toBe(REPLY);

    const live = await lateRead(handle.workflowId);
    const reset = live.findIndex((e) => e.type === 'model_reset');
    expect(live[reset]).toMatchObject({ type: 'model_reset', call: 'model:1:1', attempt: 2 });
    expect(live.slice(0, reset).every((e) => e.attempt === 1)).toBe(true);
    expect(live.slice(reset).every((e) => e.attempt === 2)).toBe(true);
    const partial = live
      .slice(0, reset)
      .map((e) => (e.type === 'model_delta' ? (e.text ?? '') : ''))
      .join('');
    expect(REPLY.startsWith(partial) && partial.length > 0 && partial.length < REPLY.length).toBe(true);
    expect(liveText(live).get('model:1:1')).toBe(REPLY);
  });

  it('writes nothing to the run’s history: as many events as a run that does not stream, no publish Updates', async () => {
    const [streamed, plain] = await Promise.all(
      [w, off].map(async (worker) => {
        const handle = await worker.start({ agent: 'test', prompt: 'Where is A-1001?', model: 'scripted:quiet' });
        expect((await handle.result()).answer).toBe(REPLY);
        return { handle, events: (await handle.fetchHistory()).events ?? [] };
      }),
    );
    // The deltas did go out, to Redis.
    expect(liveText(await lateRead(streamed!.handle.workflowId)).get('model:1:1')).toBe(REPLY);
    expect(
      streamed!.events.filter(
        (e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionSignaledEventAttributes,
      ),
    ).toEqual([]);
    expect(streamed!.events.length).toBe(plain!.events.length);
  });

  it('Redis unreachable: the deltas are dropped, the turn is recorded as if nothing streamed', async () => {
    const handle = await dead.start({ agent: 'test', prompt: 'Where is A-1001?', model: 'scripted:quiet' });
    expect((await handle.result()).answer).toBe(REPLY);
    expect(await redis.exists(`${keyPrefix}${handle.workflowId}`)).toBe(0);
    expect(logged[0]).toMatch(/^cairn: live deltas to Redis are dropped until it is reachable/);
  });
});

describe.skipIf(unreachable !== undefined)('redisTransport when Redis goes away mid-turn', () => {
  const { hostname, port } = new URL(REDIS_URL);
  const keyPrefix = `cairn:test:${randomUUID().slice(0, 8)}:`;
  const redis = createClient({ url: REDIS_URL });
  /** A TCP proxy to Redis that the test can cut and bring back on the same port. */
  const sockets = new Set<Socket>();
  let proxy: Server | undefined;
  let proxyPort = 0;
  const listen = async () => {
    proxy = createServer((inbound) => {
      const outbound = connect(Number(port || 6379), hostname);
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => (sockets.delete(s), inbound.destroy(), outbound.destroy()));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => proxy!.listen(proxyPort, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as { port: number }).port;
  };
  const cut = async () => {
    const closed = new Promise((resolve) => proxy!.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
  };
  beforeAll(async () => {
    await redis.connect();
    await listen();
  });
  afterAll(async () => {
    await cut();
    for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
    redis.destroy();
  });

  it('drops what it cannot write, never rejects, and writes again once Redis is back', async () => {
    let back!: () => void;
    const isBack = new Promise<void>((resolve) => (back = resolve));
    const logged: string[] = [];
    const transport = redisTransport({
      url: `redis://127.0.0.1:${proxyPort}`,
      keyPrefix,
      batchIntervalMs: 0,
      timeoutMs: 500,
      log: (m) => (logged.push(m), m.includes('reachable again') && back()),
    });
    const workflowId = `test-${randomUUID()}`;
    const key = `${keyPrefix}${workflowId}`;
    const texts = async () =>
      ((await redis.xRange(key, '-', '+')) ?? []).map(
        (e) => JSON.parse(String(e!.message.event)) as LiveEvent & { seq: number; text?: string },
      );

    const first = transport.open({ workflowId, runId: 'r1', call: 'model:1:1', attempt: 1 });
    first.push({ kind: 'text', text: 'Before ' });
    await first.close();
    expect((await texts()).map((e) => e.text)).toEqual(['Before ']);

    await cut();
    const second = transport.open({ workflowId, runId: 'r1', call: 'model:2:1', attempt: 1 });
    second.push({ kind: 'text', text: 'lost ' });
    await expect(second.close()).resolves.toBeUndefined();
    expect(logged[0]).toMatch(/^cairn: live deltas to Redis are dropped until it is reachable/);

    await listen();
    await isBack;
    const third = transport.open({ workflowId, runId: 'r1', call: 'model:3:1', attempt: 1 });
    third.push({ kind: 'text', text: 'After' });
    await third.close();
    expect((await texts()).map((e) => `${e.call}:${e.text}`)).toEqual(['model:1:1:Before ', 'model:3:1:After']);
    await transport.close();
  });
});
