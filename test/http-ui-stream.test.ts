/**
 * The AI SDK's UI message stream over the HTTP handler, read by the `ai` package itself: its
 * DefaultChatTransport posts as `useChat` does and `readUIMessageStream` builds the messages.
 * A question is answered by the next user message; a review is a tool approval request answered
 * by an approval response; the run completes and the refund ran once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
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
});
