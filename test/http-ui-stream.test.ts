/**
 * The AI SDK's UI message stream over the HTTP handler, read by the `ai` package itself: its
 * DefaultChatTransport posts as `useChat` does and `readUIMessageStream` builds the messages.
 * A question is answered by the next user message; a review is a tool approval request answered
 * by an approval response; the run completes and the refund ran once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
} from 'ai';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { TestChat } from './support/chat.js';
import { serve, type Served } from './support/http.js';
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
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    }),
  );
});
afterAll(async () => {
  await served?.close();
  await w?.stop();
});

/** One chat turn as useChat takes it: the transport's stream, read into the assistant message. */
async function turn(chatId: string, messages: UIMessage[]): Promise<UIMessage> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId,
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });
  // A response after the assistant's message continues it, as useChat does.
  const previous = messages.at(-1)?.role === 'assistant' ? structuredClone(messages.at(-1)) : undefined;
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({
    stream,
    terminateOnError: true,
    ...(previous && { message: previous }),
  }))
    last = message;
  return last!;
}

const user = (text: string): UIMessage => ({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] });

describe('the AI SDK UI message stream over the HTTP handler', () => {
  it('reads a whole run: tool parts with a structured error, a question, an approval request answered by a response', async () => {
    ({ model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'nope' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
      scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }),
      scriptStep.text('Done: morning redelivery, 80 refunded.'),
    ]));
    const chatId = `c-${randomUUID()}`;
    const before = calls.issue_refund ?? 0;
    const history: UIMessage[] = [user('Redeliver A-1001 and refund 80.')];

    const first = await turn(chatId, history);
    const refused = first.parts.find((p) => p.type === 'dynamic-tool' && p.toolName === 'lookup_order');
    expect(refused).toMatchObject({
      state: 'output-error',
      errorText: expect.stringMatching(/^invalid_arguments: .*hint: .*"exampleInput":\{"orderId":"A-1001"\}/),
    });
    expect(first.parts.find((p) => p.type === 'data-cairn-question')).toMatchObject({
      data: { question: 'Which delivery window suits you: morning or afternoon?' },
    });
    expect(
      first.parts
        .filter((p) => p.type === 'data-cairn-decision')
        .map((p) => (p as { data: { action: string } }).data.action),
    ).toEqual(expect.arrayContaining(['repair', 'clarify']));
    history.push(first, user('morning'));

    const second = await turn(chatId, history);
    const held = second.parts.find((p) => p.type === 'dynamic-tool' && p.toolName === 'issue_refund');
    expect(held).toMatchObject({
      state: 'approval-requested',
      input: { orderId: 'A-1001', amount: 80 },
      approval: { id: expect.stringMatching(/^review:/) },
    });
    // What addToolApprovalResponse does to the message before useChat sends it again.
    const approval = (held as { approval: { id: string } }).approval;
    const responded = {
      ...second,
      parts: second.parts.map((p) =>
        p === held ? { ...held, state: 'approval-responded', approval: { id: approval.id, approved: true } } : p,
      ),
    } as UIMessage;
    history.push(responded);

    const third = await turn(chatId, history);
    expect(third.parts.find((p) => p.type === 'dynamic-tool' && p.toolName === 'issue_refund')).toMatchObject({
      state: 'output-available',
      output: { status: 'ok', result: { refunded: 80 } },
    });
    expect(third.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toContain(
      'Done: morning redelivery, 80 refunded.',
    );
    expect(calls.issue_refund! - before).toBe(1);
  });

  it("refuses an earlier run's approval (409 not_pending) while a later run waits: useChat is told, nothing is decided", async () => {
    const chatId = `stale-${randomUUID()}`;
    const workflowId = `cairn-thread-${chatId}`;
    const before = calls.issue_refund ?? 0;
    // Tab A: run 1 holds a refund for review.
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-71', amount: 80 }),
      scriptStep.text('Refunded 80 on A-71.'),
    ]));
    const statuses: number[] = [];
    const tabA = new TestChat({
      id: chatId,
      transport: new DefaultChatTransport<UIMessage>({
        api: `${served.url}/chat`,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        },
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    type ToolPart = { type: string; toolCallId: string; state: string; approval?: { id: string } };
    const heldIn = (chat: TestChat) =>
      chat.messages
        .flatMap((m) => m.parts as unknown as ToolPart[])
        .find((p) => p.type === 'dynamic-tool' && p.state === 'approval-requested');
    await tabA.sendMessage({ text: 'Refund 80 on A-71.' });
    await tabA.settled((c) => heldIn(c) !== undefined || c.status === 'error');
    const stale = heldIn(tabA)!;

    // Elsewhere (REST) run 1's call is accepted and run 1 finishes; tab B's message starts run 2, which waits on its own 1.1.
    const json = (body: unknown) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const accepted = await fetch(
      `${served.url}/runs/${encodeURIComponent(workflowId)}/reviews/${encodeURIComponent(stale.toolCallId)}`,
      json({ decision: { type: 'accept' } }),
    );
    expect(accepted.status).toBe(200);
    await w.client.workflow.getHandle(workflowId).result();
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-73', amount: 90 }),
      scriptStep.text('Refunded 90 on A-73.'),
    ]));
    const tabB = new TestChat({
      id: chatId,
      transport: new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` }),
    });
    await tabB.sendMessage({ text: 'And 90 on A-73.' });
    await tabB.settled((c) => heldIn(c) !== undefined || c.status === 'error');
    expect(heldIn(tabB)?.approval?.id).not.toBe(stale.approval!.id);

    // Tab A's person approves what tab A still shows: run 1's call. useChat sends it; the chat is told.
    const sent = statuses.length;
    await tabA.addToolApprovalResponse({ id: stale.approval!.id, approved: true });
    await tabA.settled(() => statuses.length > sent);
    expect(statuses.at(-1)).toBe(409);
    expect(tabA.status).toBe('error');
    expect(tabA.error?.message).toContain('not_pending');

    // The same request by plain fetch: the error body the other surfaces give.
    const refused = await fetch(`${served.url}/chat`, json({ id: chatId, messages: tabA.messages }));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: 'not_pending', message: expect.stringContaining('earlier run of this thread') },
    });

    // Run 2 still waits on its own call; only run 1's refund ran.
    const read = (await (await fetch(`${served.url}/runs/${encodeURIComponent(workflowId)}`)).json()) as {
      state: { phase: string; reviews: { args: unknown }[] };
    };
    expect(read.state).toMatchObject({
      phase: 'awaiting_review',
      reviews: [{ args: { orderId: 'A-73', amount: 90 } }],
    });
    expect(calls.issue_refund! - before).toBe(1);
  });
});
