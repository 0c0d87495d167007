/**
 * The live-delta scenarios over the HTTP handler, shared by the durable transport's tests
 * (test/http-live.test.ts) and Redis's (test/http-live-redis.test.ts): scripted streaming models a
 * test can hold open or break mid-stream, and the AG-UI and UI-stream drivers with what every
 * transport must show a client.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { EventType, HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { ModelServerError } from '../../activities/model/model-errors.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import type { Script } from '../../testing/script-steps.js';
import type { ScriptedStreaming } from '../../testing/scripted-streaming.js';

export const REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';

/** The model waits before piece 1 of call `step` until `release()`; `released` says whether it has. */
export interface Hold {
  released: boolean;
  release(): void;
}

/**
 * Streaming models (10 pieces a reply) whose hooks a test sets before it starts a run: the worker
 * copies the model registry at start, so the hooks live here. `model` is the spec of the model the
 * last `use`, `hold` or `dieOnce` picked, for the handler's `startOptions`.
 */
export function streamingModels<Name extends string>(scripts: Record<Name, Script>) {
  const hooks = new Map<string, ScriptedStreaming>();
  const models = Object.fromEntries(
    Object.entries<Script>(scripts).map(([name, script]) => [
      name,
      new ScriptedModel(name, script, {
        streaming: { pieces: 10, before: (i, context) => hooks.get(name)?.before?.(i, context) },
      }),
    ]),
  ) as Record<Name, ScriptedModel>;
  const live = {
    models,
    model: '',
    use(name: Name, streaming?: ScriptedStreaming): void {
      if (streaming) hooks.set(name, streaming);
      else hooks.delete(name);
      live.model = `scripted:${name}`;
    },
    hold(name: Name, step = 0): Hold {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const held: Hold = { released: false, release: () => ((held.released = true), release()) };
      live.use(name, { before: (i, context) => (context.step === step && i === 1 ? gate : undefined) });
      return held;
    },
    /** The first call dies at piece 4 with a retryable 502; its retry streams whole. */
    dieOnce(name: Name): void {
      live.use(name, {
        before: (i, context) => {
          if (context.step === 0 && i === 4) throw new ModelServerError('The connection dropped mid-stream.', 502);
        },
      });
    },
  };
  return live;
}

export const assistantTexts = (messages: readonly Message[]) =>
  messages.flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' && m.content ? [m.content] : []));

/**
 * An AG-UI run whose model call is held: the first TEXT_MESSAGE_CONTENT releases it (so it reached
 * the client while the call was open); the final message is what the deltas add up to, once.
 */
export async function expectAguiDeltasWhileHeld(
  url: string,
  held: Hold,
  threadId = `t-${randomUUID()}`,
): Promise<BaseEvent[]> {
  const agent = new HttpAgent({
    url: `${url}/agui`,
    threadId,
    initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }],
  });
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
  const deltas = events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => (e as unknown as { delta: string }).delta);
  expect(deltas.join('')).toBe(REPLY);
  // The streamed turn was the final answer: `finish` did not send it again.
  expect(assistantTexts(agent.messages)).toEqual([REPLY]);
  return events;
}

/**
 * An AG-UI run whose call dies mid-stream (`dieOnce`): one cairn.reset names the stale message,
 * which holds a prefix of the reply; dropping it leaves the retry's message alone, whole.
 */
export async function expectAguiResetThenWhole(url: string): Promise<void> {
  const agent = new HttpAgent({
    url: `${url}/agui`,
    threadId: `t-${randomUUID()}`,
    initialMessages: [{ id: 'u1', role: 'user', content: 'Where is A-1001?' }],
  });
  const events: BaseEvent[] = [];
  await agent.runAgent(undefined, { onEvent: ({ event }) => void events.push(event) });
  const resets = events.filter((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'cairn.reset');
  expect(resets).toHaveLength(1);
  const stale = (resets[0] as unknown as { value: { messageId: string } }).value.messageId;
  const partial = agent.messages.find((m) => m.id === stale)!.content as string;
  expect(REPLY.startsWith(partial) && partial.length < REPLY.length).toBe(true);
  expect(assistantTexts(agent.messages).at(-1)).toBe(REPLY);
  expect(assistantTexts(agent.messages.filter((m) => m.id !== stale))).toEqual([REPLY]);
}

export const userMessage = (text: string): UIMessage => ({
  id: randomUUID(),
  role: 'user',
  parts: [{ type: 'text', text }],
});
export const uiTexts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));

/** Sends to the handler's `/chat` as `useChat` does and reads the stream to its last message. */
export async function chat(
  url: string,
  chatId: string,
  text: string | UIMessage[],
  onMessage: (m: UIMessage) => void = () => {},
): Promise<UIMessage> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${url}/chat` });
  const messages = typeof text === 'string' ? [userMessage(text)] : text;
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId,
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) {
    onMessage(message);
    last = message;
  }
  return last!;
}

/** A chat whose call dies mid-stream (`dieOnce`): a partial text showed, and reset-step left the retry's text alone. */
export async function expectUiResetThenWhole(url: string): Promise<void> {
  let sawPartial = false;
  const last = await chat(url, `c-${randomUUID()}`, 'Where is A-1001?', (message) => {
    if (uiTexts(message).some((t) => t.length > 0 && t.length < REPLY.length)) sawPartial = true;
  });
  expect(sawPartial).toBe(true);
  expect(uiTexts(last)).toEqual([REPLY]);
}
