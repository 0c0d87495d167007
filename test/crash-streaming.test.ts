/**
 * A worker SIGKILLed mid-stream, seen through real protocol clients on a real dev server: the
 * worker (its own process, test/fixtures/streaming-worker.ts) streams a model turn durably and
 * hangs after a few pieces; once the client holds part of the text, it is killed and a second
 * worker starts. The model call's heartbeat timeout (10 s) hands the call to the second worker,
 * whose attempt starts with a `model_reset` and streams the whole reply. `ai`'s
 * readUIMessageStream over POST /chat and `@ag-ui/client`'s HttpAgent over POST /agui each end
 * with the reply exactly once: never stale or duplicated text, at no point of the stream. This
 * process serves the HTTP handler only (no worker). Prints how long the retry took.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import type { LiveEvent } from '../shared/live/model-delta.js';
import { testAgent } from './fixtures/agents.js';
import { serve } from './support/http.js';
import { connectClient } from './support/temporal.js';
import { startWorkerProcess } from './support/worker-process.js';

const REPLY =
  'The order A-1001 shipped on Monday from the north warehouse and arrives on Thursday, on time, in one box.';
const PIECES = 10;
const HANG_AFTER = 3;

let client: Client;
const workers: ChildProcess[] = [];
beforeAll(async () => {
  client = await connectClient();
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await client?.connection.close();
});

/** One trial: its own task queue, a worker that hangs mid-stream, and the handler in this process. */
async function setUp() {
  const taskQueue = `crash-stream-${randomUUID()}`;
  const settings = { TASK_QUEUE: taskQueue, REPLY, PIECES: String(PIECES) };
  const first = await startWorkerProcess(
    'streaming-worker.ts',
    { ...settings, HANG_AFTER_PIECES: String(HANG_AFTER) },
    workers,
  );
  const cairn = new CairnClient({ client, taskQueue });
  const served = await serve(
    createCairnHttpHandler({
      client: cairn,
      agents: [testAgent],
      startOptions: () => ({ model: 'scripted:stream', temporal: { workflowExecutionTimeout: '5m' } }),
    }),
  );
  let killedAt = 0;
  let second: Promise<ChildProcess> | undefined;
  return {
    served,
    /** SIGKILLs the hanging worker and starts one that streams the whole reply (once). */
    strike() {
      if (second) return;
      killedAt = Date.now();
      first.kill('SIGKILL');
      second = startWorkerProcess('streaming-worker.ts', settings, workers);
    },
    get killedAt() {
      return killedAt;
    },
    async tearDown() {
      await served.close();
      (await second)?.kill('SIGKILL');
    },
  };
}

/** The run's live events, in stream order (the run has finished). */
async function liveEvents(workflowId: string): Promise<LiveEvent[]> {
  const live: LiveEvent[] = [];
  for await (const event of new AgentRunHandle(client, workflowId).events({
    types: ['model_delta', 'model_reset', 'finish'],
  }))
    if (event.type === 'model_delta' || event.type === 'model_reset') live.push(event);
  return live;
}

/** One model call: attempt 1's partial text, then attempt 2's reset before any of its deltas, then the whole reply. */
function expectResetThenWhole(live: readonly LiveEvent[]) {
  const calls = new Set(live.map((e) => e.call));
  expect(calls.size).toBe(1);
  const text = (attempt: number) =>
    live.flatMap((e) => (e.type === 'model_delta' && e.attempt === attempt ? [e.text ?? ''] : [])).join('');
  const stale = text(1);
  expect(stale.length).toBeGreaterThan(0);
  expect(stale.length).toBeLessThan(REPLY.length);
  expect(REPLY.startsWith(stale)).toBe(true);
  const resets = live.filter((e) => e.type === 'model_reset');
  expect(resets.map((e) => e.attempt)).toEqual([2]);
  const reset = live.indexOf(resets[0]!);
  expect(live.findIndex((e) => e.attempt === 2)).toBe(reset);
  expect(live.slice(0, reset).every((e) => e.attempt === 1)).toBe(true);
  expect(text(2)).toBe(REPLY);
  expect(new Set(live.map((e) => e.attempt))).toEqual(new Set([1, 2]));
}

const slow = { timeout: 240_000 };

describe('a worker SIGKILLed mid-stream', () => {
  it(
    'AI SDK UI stream: partial text, reset-step, then the retry whole; the message is never more than a prefix of the reply',
    slow,
    async () => {
      const trial = await setUp();
      try {
        const chatId = `c-${randomUUID()}`;
        const transport = new DefaultChatTransport<UIMessage>({ api: `${trial.served.url}/chat` });
        const stream = await transport.sendMessages({
          trigger: 'submit-message',
          chatId,
          messageId: undefined,
          messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Where is A-1001?' }] }],
          abortSignal: undefined,
        });
        const texts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
        const seen: string[][] = [];
        let partial: string | undefined;
        let last: UIMessage | undefined;
        for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) {
          const now = texts(message);
          seen.push(now);
          // The model hangs after HANG_AFTER pieces: text here is mid-stream, on the first worker.
          if (partial === undefined && now.join('').length > 0) {
            partial = now.join('');
            trial.strike();
          }
          last = message;
        }
        const resetMs = Date.now() - trial.killedAt;
        expect(partial!.length).toBeLessThan(REPLY.length);
        expect(REPLY.startsWith(partial!)).toBe(true);
        // At no point did the message hold stale and new text together, or any text twice.
        for (const now of seen) {
          expect(now.length).toBeLessThanOrEqual(1);
          expect(REPLY.startsWith(now.join(''))).toBe(true);
        }
        expect(texts(last!)).toEqual([REPLY]);
        expect(last!.parts.filter((p) => p.type === 'text')).toHaveLength(1);

        const workflowId = `cairn-thread-${chatId}`;
        expect((await new AgentRunHandle(client, workflowId).result()).answer).toBe(REPLY);
        expectResetThenWhole(await liveEvents(workflowId));
        console.log(`UI stream: the retry's whole reply reached the client ${resetMs} ms after the SIGKILL`);
      } finally {
        await trial.tearDown();
      }
    },
  );

  it('AG-UI: the stale message ends and cairn.reset names it; the retry is a fresh message, whole', slow, async () => {
    const trial = await setUp();
    try {
      const threadId = `t-${randomUUID()}`;
      const agent = new HttpAgent({
        url: `${trial.served.url}/agui`,
        threadId,
        initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }],
      });
      const events: BaseEvent[] = [];
      await agent.runAgent(undefined, {
        onEvent: ({ event }) => {
          events.push(event);
          if (event.type === 'TEXT_MESSAGE_CONTENT') trial.strike(); // mid-stream: the model hangs after HANG_AFTER pieces
        },
      });
      const resetMs = Date.now() - trial.killedAt;
      const named = <T>(e: BaseEvent) => e as unknown as T;
      const resets = events.filter((e) => e.type === 'CUSTOM' && named<{ name: string }>(e).name === 'cairn.reset');
      expect(resets).toHaveLength(1);
      const stale = named<{ value: { messageId: string } }>(resets[0]!).value.messageId;
      // Each message's deltas: the stale one a proper prefix, ended before the reset; the retry's the reply, once.
      const contents = new Map<string, string>();
      for (const e of events) {
        if (e.type !== 'TEXT_MESSAGE_CONTENT') continue;
        const { messageId, delta } = named<{ messageId: string; delta: string }>(e);
        contents.set(messageId, (contents.get(messageId) ?? '') + delta);
        expect(REPLY.startsWith(contents.get(messageId)!)).toBe(true);
      }
      expect(contents.size).toBe(2);
      const partial = contents.get(stale)!;
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(REPLY.length);
      expect([...contents].filter(([id]) => id !== stale).map(([, text]) => text)).toEqual([REPLY]);
      const staleEnd = events.findIndex(
        (e) => e.type === 'TEXT_MESSAGE_END' && named<{ messageId: string }>(e).messageId === stale,
      );
      expect(staleEnd).toBeGreaterThanOrEqual(0);
      expect(staleEnd).toBeLessThan(events.indexOf(resets[0]!));
      expect(events.at(-1)?.type).toBe('RUN_FINISHED');
      // Dropping what cairn.reset names leaves the reply once.
      const assistantTexts = (messages: readonly Message[]) =>
        messages.flatMap((m) =>
          m.role === 'assistant' && typeof m.content === 'string' && m.content ? [m.content] : [],
        );
      expect(assistantTexts(agent.messages.filter((m) => m.id !== stale))).toEqual([REPLY]);

      const workflowId = `cairn-thread-${threadId}`;
      expect((await new AgentRunHandle(client, workflowId).result()).answer).toBe(REPLY);
      expectResetThenWhole(await liveEvents(workflowId));
      console.log(`AG-UI: the retry's whole reply reached the client ${resetMs} ms after the SIGKILL`);
    } finally {
      await trial.tearDown();
    }
  });
});
