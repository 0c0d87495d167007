/**
 * A thread of five runs, in one client each, as a chat app keeps it: one `HttpAgent` and one
 * `AbstractChat` (useChat's engine), a tool call numbered `1.1` in four of the runs, approvals in
 * runs 2 and 4, a run without review between them. Every run numbers its calls from 1.1 again, so
 * the surfaces name each call by its run too (servers/http/run-scope.ts); the conversation must
 * read exactly as it happened: each call once, with its own arguments and its own result, and no
 * approval of an earlier run ever deciding a later one's call.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent, type BaseEvent, type RunFinishedEvent } from '@ag-ui/client';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
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

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** The five runs: what the person says, what the model does, whether a reviewer is asked, the answer. */
const RUNS = [
  { say: 'Where is A-71?', call: ['lookup_order', { orderId: 'A-71' }], review: false, answer: 'A-71 has shipped.' },
  {
    say: 'Refund 80 on A-71.',
    call: ['issue_refund', { orderId: 'A-71', amount: 80 }],
    review: true,
    answer: 'Refunded 80 on A-71.',
  },
  {
    say: 'And 20 on A-72.',
    call: ['issue_refund', { orderId: 'A-72', amount: 20 }],
    review: false,
    answer: 'Refunded 20 on A-72.',
  },
  {
    say: 'And 90 on A-73.',
    call: ['issue_refund', { orderId: 'A-73', amount: 90 }],
    review: true,
    answer: 'Refunded 90 on A-73.',
  },
  { say: 'Thanks!', call: undefined, review: false, answer: 'You are welcome.' },
] as const;

function script(run: (typeof RUNS)[number]): void {
  ({ model } = w.script([
    ...(run.call ? [scriptStep.call(run.call[0], run.call[1])] : []),
    scriptStep.text(run.answer),
  ]));
}

/** What each run's call did: the tool's result names its order (lookup) or its refund. */
const resultOf = (run: (typeof RUNS)[number]) =>
  run.call?.[0] === 'lookup_order'
    ? { id: 'A-71' }
    : { refunded: run.call?.[1].amount, orderId: run.call?.[1].orderId };

describe('a thread of five runs', () => {
  it('one HttpAgent: every run tells its own call (START/ARGS/END) with its arguments, and its result under it', async () => {
    const threadId = `five-agui-${randomUUID()}`;
    const refunds = calls.issue_refund ?? 0;
    const agent = new HttpAgent({ url: `${served.url}/agui`, threadId });
    const windows: BaseEvent[][] = [];
    const runOnce = async (parameters?: Parameters<HttpAgent['runAgent']>[0]) => {
      const events: BaseEvent[] = [];
      await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
      windows.push(events);
      return events.at(-1) as RunFinishedEvent;
    };
    for (const [i, run] of RUNS.entries()) {
      script(run);
      agent.addMessage({ id: `u${i + 1}`, role: 'user', content: run.say });
      let finished = await runOnce();
      if (run.review) {
        expect(finished.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ reason: 'tool_approval' }] });
        const interrupt = agent.pendingInterrupts[0]!;
        // The interrupt names the call this window opened, not an earlier run's 1.1.
        const opened = windows
          .at(-1)!
          .filter((e) => e.type === 'TOOL_CALL_START')
          .map((e) => (e as unknown as { toolCallId: string }).toolCallId);
        expect(opened).toEqual([interrupt.toolCallId]);
        finished = await runOnce({
          resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { type: 'accept' } }],
        });
      }
      expect(finished.outcome, `run ${i + 1}`).toMatchObject({ type: 'success' });
    }
    expect(calls.issue_refund! - refunds).toBe(3);

    // The conversation as the app renders it: each call once, its arguments, its own result.
    const toolCalls = agent.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    expect(toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual(
      RUNS.flatMap((r) => (r.call ? [[r.call[0], r.call[1]]] : [])),
    );
    expect(new Set(toolCalls.map((c) => c.id)).size).toBe(4);
    const results = new Map(
      agent.messages.flatMap((m) =>
        m.role === 'tool' ? [[m.toolCallId, JSON.parse(String(m.content)) as { result?: unknown }] as const] : [],
      ),
    );
    const withCalls = RUNS.filter((r) => r.call);
    for (const [i, call] of toolCalls.entries())
      expect(results.get(call.id)?.result, call.function.arguments).toMatchObject(resultOf(withCalls[i]!));
    const answers = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content);
    expect(answers.map((m) => m.content)).toEqual(RUNS.map((r) => r.answer));
  });

  it('one AbstractChat: approvals in runs 2 and 4 reach the person, an earlier approval never decides a later call', async () => {
    const chatId = `five-chat-${randomUUID()}`;
    const refunds = calls.issue_refund ?? 0;
    const chat = new TestChat({
      id: chatId,
      transport: new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    type ToolPart = {
      type: string;
      toolCallId: string;
      state: string;
      input?: unknown;
      output?: { result?: unknown };
      approval?: { id: string };
    };
    const toolParts = () =>
      chat.messages.flatMap((m) => m.parts.filter((p) => p.type === 'dynamic-tool') as unknown as ToolPart[]);
    const texts = () =>
      chat.messages
        .flatMap((m) => (m.role === 'assistant' ? m.parts : []))
        .flatMap((p) => (p.type === 'text' ? [p.text] : []));
    for (const run of RUNS) {
      script(run);
      await chat.sendMessage({ text: run.say });
      if (run.review) {
        await chat.settled((c) => toolParts().some((p) => p.state === 'approval-requested') || c.status === 'error');
        expect(chat.status).not.toBe('error');
        const held = toolParts().find((p) => p.state === 'approval-requested')!;
        expect(held.input).toEqual(run.call![1]);
        await chat.addToolApprovalResponse({ id: held.approval!.id, approved: true });
      }
      await chat.settled(() => texts().includes(run.answer));
      expect(chat.status, chat.error?.message).toBe('ready');
    }
    expect(calls.issue_refund! - refunds).toBe(3);
    const parts = toolParts();
    expect(parts.map((p) => p.input)).toEqual(RUNS.flatMap((r) => (r.call ? [r.call[1]] : [])));
    expect(new Set(parts.map((p) => p.toolCallId)).size).toBe(4);
    expect(parts.map((p) => p.state)).toEqual([
      'output-available',
      'output-available',
      'output-available',
      'output-available',
    ]);
    const withCalls = RUNS.filter((r) => r.call);
    for (const [i, part] of parts.entries()) expect(part.output?.result).toMatchObject(resultOf(withCalls[i]!));
    expect(texts()).toEqual(RUNS.map((r) => r.answer));

    // Run 2's approval sent again while a later run waits on its own 1.1 (same number, other run): refused.
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-71', amount: 80 }),
      scriptStep.text('Refunded 80 again.'),
    ]));
    await chat.sendMessage({ text: 'Refund 80 on A-71 once more.' });
    await chat.settled((c) => toolParts().some((p) => p.state === 'approval-requested') || c.status === 'error');
    const workflowId = `cairn-thread-${chatId}`;
    const stale = parts[1]!.approval!.id;
    // A client that sends run 2's approval back as responded (the same call number, the same arguments).
    const replayed = await fetch(
      `${served.url}/chat`,
      json({
        id: chatId,
        messages: [
          ...chat.messages,
          {
            id: 'stale',
            role: 'assistant',
            parts: [{ ...parts[1], state: 'approval-responded', approval: { id: stale, approved: true } }],
          },
        ],
      }),
    );
    // Refused as REST and AG-UI refuse it: the chat client is told.
    expect(replayed.status).toBe(409);
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('not_pending');
    const state = (await (await fetch(`${served.url}/runs/${encodeURIComponent(workflowId)}`)).json()) as {
      state: { phase: string; reviews: { toolCallId: string }[] };
    };
    expect(state.state).toMatchObject({ phase: 'awaiting_review', reviews: [{ toolCallId: '1.1' }] });
    // REST: the stale scoped id is refused as another run's; the current one's decides.
    const staleCall = stale.split(':')[1]!;
    const refused = await fetch(
      `${served.url}/runs/${encodeURIComponent(workflowId)}/reviews/${encodeURIComponent(staleCall)}`,
      json({ decision: { type: 'reject' } }),
    );
    expect(refused.status).toBe(409);
    expect(calls.issue_refund! - refunds).toBe(3);
  });
});

describe("a reasoning model's thoughts", () => {
  const THOUGHT = 'The customer asks about A-81; look it up first.';
  const reasoningScript = () =>
    w.script([
      scriptStep.call('lookup_order', { orderId: 'A-81' }, `<think>${THOUGHT}</think>`),
      scriptStep.text('<think>It has shipped.</think>A-81 has shipped.'),
    ]);

  it('reach HttpAgent as REASONING_* events and reasoning messages, never as text', async () => {
    ({ model } = reasoningScript());
    const agent = new HttpAgent({ url: `${served.url}/agui`, threadId: `think-${randomUUID()}` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'Where is A-81?' });
    const events: BaseEvent[] = [];
    await agent.runAgent(undefined, { onEvent: ({ event }) => void events.push(event) });
    const types = events.map((e) => e.type);
    expect(types).toContain('REASONING_START');
    expect(types.filter((t) => t === 'REASONING_MESSAGE_CONTENT')).toHaveLength(2);
    const reasoning = agent.messages.filter((m) => m.role === 'reasoning').map((m) => m.content);
    expect(reasoning).toEqual([THOUGHT, 'It has shipped.']);
    const texts = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content);
    expect(texts.map((m) => m.content)).toEqual(['A-81 has shipped.']);
    expect(JSON.stringify(agent.messages)).not.toContain('<think>');
  });

  it('reach AbstractChat as reasoning parts, never as text', async () => {
    ({ model } = reasoningScript());
    const chat = new TestChat({
      id: `think-${randomUUID()}`,
      transport: new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` }),
    });
    await chat.sendMessage({ text: 'Where is A-81?' });
    await chat.settled();
    expect(chat.status, chat.error?.message).toBe('ready');
    const parts = chat.messages.flatMap((m) => (m.role === 'assistant' ? m.parts : []));
    expect(parts.filter((p) => p.type === 'reasoning').map((p) => (p as { text: string }).text)).toEqual([
      THOUGHT,
      'It has shipped.',
    ]);
    expect(parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual([
      'A-81 has shipped.',
    ]);
    expect(JSON.stringify(chat.messages)).not.toContain('<think>');
  });
});
