/**
 * The real chat clients, used as apps use them, on a real dev server through the HTTP handler:
 * the AI SDK's own chat engine (`AbstractChat`, what `useChat` runs) with `DefaultChatTransport`,
 * `sendAutomaticallyWhen` and `addToolApprovalResponse`; one `@ag-ui/client` `HttpAgent` kept
 * through every interrupt; plain fetch for REST. Each defect of issue 26 has its check here:
 * one assistant message per exchange, a tool call told once with valid arguments, answers held
 * to the schema the run advertises, a person's words to a waiting thread delivered, one decision
 * wins, a closed run refuses acts (409) and never runs again, a cancel is not a success.
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
import { awaiting } from './support/runs.js';
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
const handle = (workflowId: string) => w.client.workflow.getHandle(workflowId);

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

/** Runs the agent once, keeping every event it saw; the window's last event. */
async function runOnce(agent: HttpAgent, parameters?: Parameters<HttpAgent['runAgent']>[0]) {
  const events: BaseEvent[] = [];
  await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  return { events, finished: events.at(-1) as RunFinishedEvent };
}

type ToolPart = {
  type: string;
  toolCallId: string;
  state: string;
  approval?: { id: string; approved?: boolean };
  input?: unknown;
  output?: unknown;
};
const toolPart = (message: UIMessage | undefined, toolCallId?: string) =>
  message?.parts.find(
    (p) => p.type === 'dynamic-tool' && (toolCallId === undefined || (p as ToolPart).toolCallId === toolCallId),
  ) as ToolPart | undefined;
const assistants = (chat: TestChat) => chat.messages.filter((m) => m.role === 'assistant');
const texts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : []));

describe("useChat's engine (AbstractChat) over the UI message stream", () => {
  it('an approval sent automatically continues the one assistant message; a late approval, a resume and a new message', async () => {
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-31', amount: 80 }),
      scriptStep.text('Refunded 80 on A-31.'),
    ]));
    const chatId = `chat-${randomUUID()}`;
    const workflowId = `cairn-thread-${chatId}`;
    const before = calls.issue_refund ?? 0;
    const transport = new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` });
    const chat = new TestChat({
      id: chatId,
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });

    await chat.sendMessage({ text: 'Refund 80 on A-31.' });
    await chat.settled();
    const held = toolPart(assistants(chat)[0]);
    expect(held).toMatchObject({
      state: 'approval-requested',
      input: { orderId: 'A-31', amount: 80 },
      approval: { id: expect.stringMatching(/^review:/) },
    });

    // The person approves; the chat sends by itself (sendAutomaticallyWhen) and the run finishes.
    await chat.addToolApprovalResponse({ id: held!.approval!.id, approved: true });
    await chat.settled((c) => texts(assistants(c).at(-1)).includes('Refunded 80 on A-31.'));
    expect(assistants(chat)).toHaveLength(1);
    const message = assistants(chat)[0]!;
    expect(toolPart(message)).toMatchObject({
      state: 'output-available',
      approval: { id: held!.approval!.id, approved: true },
      output: { status: 'ok' },
    });
    // The tool card went approval-requested → approval-responded → output-available, in one message.
    const states = chat.memory.writes
      .filter((m) => m.id === message.id)
      .map((m) => toolPart(m)?.state)
      .filter((s, i, all) => s !== undefined && s !== all[i - 1]);
    expect(states.slice(-3)).toEqual(['approval-requested', 'approval-responded', 'output-available']);
    // Nothing told twice: data parts are unique by type and id, the tool card is one part.
    const dataKeys = message.parts
      .filter((p) => p.type.startsWith('data-cairn-'))
      .map((p) => `${p.type}:${(p as { id?: string }).id}`);
    expect(new Set(dataKeys).size).toBe(dataKeys.length);
    expect(message.parts.filter((p) => p.type === 'dynamic-tool')).toHaveLength(1);
    expect(calls.issue_refund! - before).toBe(1);
    const firstRun = (await handle(workflowId).describe()).runId;

    // The same approval sent again after the run finished: no new run, the tool never runs again.
    const late = await fetch(`${served.url}/chat`, json({ id: chatId, messages: chat.messages }));
    expect(await errorOf(late)).toMatchObject({ status: 409, code: 'run_closed' });
    // A client that lost the final answer gets it, once, and still no new run.
    const lost = chat.messages.map((m) =>
      m.role === 'assistant' ? { ...m, parts: m.parts.filter((p) => p.type !== 'text') } : m,
    );
    const lostChat = new TestChat({ id: chatId, transport, messages: structuredClone(lost) });
    await lostChat.resumeStream();
    await lostChat.settled();
    expect(assistants(lostChat)).toHaveLength(1);
    expect(texts(assistants(lostChat)[0]).filter((t) => t === 'Refunded 80 on A-31.')).toHaveLength(1);
    const again = await fetch(`${served.url}/chat`, json({ id: chatId, messages: lost }));
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('Refunded 80 on A-31.');
    // The first request sent again (a client that lost the run's only window): the outcome, not a second run.
    const retried = await fetch(`${served.url}/chat`, json({ id: chatId, messages: [chat.messages[0]] }));
    expect(retried.status).toBe(200);
    expect(await retried.text()).toContain('Refunded 80 on A-31.');
    expect((await handle(workflowId).describe()).runId).toBe(firstRun);
    expect(calls.issue_refund! - before).toBe(1);

    // useChat({ resume: true }) after the run finished: the last message again, replacing the one it has.
    await chat.resumeStream();
    await chat.settled();
    expect(assistants(chat)).toHaveLength(1);
    expect(texts(assistants(chat)[0]).filter((t) => t === 'Refunded 80 on A-31.')).toHaveLength(1);

    // Only a new user message starts the thread's next run; its message id is new in the thread.
    ({ model } = w.script([scriptStep.text('You are welcome.')]));
    await chat.sendMessage({ text: 'Thanks!' });
    await chat.settled((c) => texts(assistants(c).at(-1)).includes('You are welcome.'));
    expect(assistants(chat)).toHaveLength(2);
    expect(new Set(chat.messages.map((m) => m.id)).size).toBe(chat.messages.length);
    expect((await handle(workflowId).describe()).runId).not.toBe(firstRun);
  });

  it("a person's message while the run waits on a review is queued for the next model turn, and the stream says so", async () => {
    const scripted = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-32', amount: 90 }),
      scriptStep.text('Refunded 90; noted the address.'),
    ]);
    ({ model } = scripted);
    const chatId = `chat-${randomUUID()}`;
    const chat = new TestChat({
      id: chatId,
      transport: new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Refund 90 on A-32.' });
    await chat.settled();
    await chat.sendMessage({ text: 'Also: my new address is 5 Elm St.' });
    await chat.settled();
    const told = chat.messages.at(-1)!.parts.find((p) => p.type === 'data-cairn-delivery') as
      | { data: { delivery: string } }
      | undefined;
    expect(told?.data.delivery).toBe('queued');
    // The reviewer accepts (from the inbox, say); the run goes on and finishes.
    const review = (await awaiting(handle(`cairn-thread-${chatId}`), 'awaiting_review')).reviews[0]!;
    expect(
      (
        await fetch(
          `${served.url}/runs/${encodeURIComponent(`cairn-thread-${chatId}`)}/reviews/${encodeURIComponent(review.toolCallId)}`,
          json({ decision: { type: 'accept' } }),
        )
      ).status,
    ).toBe(200);
    await handle(`cairn-thread-${chatId}`).result();
    // The model's next turn read the person's words.
    expect(JSON.stringify(scripted.scripted.requests.at(-1)!.messages)).toContain('my new address is 5 Elm St.');
  });
});

describe('one AG-UI HttpAgent through every interrupt', () => {
  it('asks, is answered within the schema, is accepted; every tool call once with valid JSON arguments; a closed run refuses', async () => {
    ({ model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'nope' }), // refused at the boundary
      scriptStep.call('schedule_redelivery', { orderId: 'A-41' }), // a question: which window
      scriptStep.call('schedule_redelivery', { orderId: 'A-41', window: 'morning' }),
      scriptStep.call('issue_refund', { orderId: 'A-41', amount: 80 }), // a review
      scriptStep.text('Redelivery in the morning; refunded 80.'),
    ]));
    const threadId = `agui-${randomUUID()}`;
    const workflowId = `cairn-thread-${threadId}`;
    const before = calls.issue_refund ?? 0;
    const agent = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'A-41: redeliver it and refund 80.' }],
    });

    const asked = await runOnce(agent);
    expect(asked.finished.outcome).toMatchObject({ type: 'interrupt' });
    const question = agent.pendingInterrupts[0]!;
    // The schema the run advertises is the tool's own for the missing field.
    const fields = (
      question.responseSchema as { properties: { answer: { anyOf: { properties?: Record<string, unknown> }[] } } }
    ).properties.answer.anyOf[1]!;
    expect(fields).toMatchObject({
      required: ['window'],
      additionalProperties: false,
      properties: { window: { type: 'string', enum: ['morning', 'afternoon'] } },
    });

    // Answers outside that schema are refused by the run (422 naming the field); the question stays open.
    const resumeBody = (payload: unknown) => ({
      threadId,
      runId: randomUUID(),
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
      resume: [{ interruptId: question.id, status: 'resolved', payload }],
    });
    for (const [answer, field] of [
      [{ foo: 'zzz' }, 'window'],
      [{ window: 'evening' }, 'window'],
      [{ window: 42 }, 'window'],
    ] as const) {
      const refused = await errorOf(await fetch(`${served.url}/agui`, json(resumeBody({ answer }))));
      expect(refused).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(refused.message).toContain(`"${field}"`);
    }
    const rest = await errorOf(
      await fetch(`${served.url}/runs/${encodeURIComponent(workflowId)}/answer`, json({ answer: { window: 5 } })),
    );
    expect(rest).toMatchObject({ status: 422, code: 'invalid_input', message: expect.stringContaining('"window"') });
    // The interrupt names the question by its run too (`q1@<run>`: a thread's runs each have a q1).
    expect(`question:${(await awaiting(handle(workflowId), 'awaiting_clarification')).clarification?.id}`).toBe(
      question.id.split('@')[0],
    );

    // The same agent resumes with the answer, then with the accept.
    const reviewed = await runOnce(agent, {
      resume: [{ interruptId: question.id, status: 'resolved', payload: { answer: { window: 'morning' } } }],
    });
    expect(reviewed.finished.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ reason: 'tool_approval' }] });
    const review = agent.pendingInterrupts[0]!;
    const done = await runOnce(agent, {
      resume: [{ interruptId: review.id, status: 'resolved', payload: { type: 'accept' } }],
    });
    expect(done.finished.outcome).toMatchObject({ type: 'success' });
    expect(calls.issue_refund! - before).toBe(1);

    // Each tool call once in the conversation, with the model's arguments as valid JSON.
    const toolCalls = agent.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    expect(new Set(toolCalls.map((c) => c.id)).size).toBe(toolCalls.length);
    const args = Object.fromEntries(
      toolCalls.map((c) => [`${c.function.name}:${c.id}`, JSON.parse(c.function.arguments) as unknown]),
    );
    expect(Object.entries(args).find(([k]) => k.startsWith('lookup_order:'))?.[1]).toEqual({ orderId: 'nope' });
    expect(Object.entries(args).find(([k]) => k.startsWith('issue_refund:'))?.[1]).toEqual({
      orderId: 'A-41',
      amount: 80,
    });
    const windowEvents = [asked, reviewed, done].map((r) =>
      r.events
        .filter((e) => e.type === 'TOOL_CALL_START')
        .map((e) => (e as unknown as { toolCallId: string }).toolCallId),
    );
    expect(new Set(windowEvents.flat()).size).toBe(windowEvents.flat().length);
    expect(
      agent.messages.filter((m) => m.role === 'assistant' && m.content === 'Redelivery in the morning; refunded 80.'),
    ).toHaveLength(1);

    // The first request sent again by a client that lost every window: the outcome once, no second run.
    const runBefore = (await handle(workflowId).describe()).runId;
    const lostAll = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'A-41: redeliver it and refund 80.' }],
    });
    const outcome = await runOnce(lostAll);
    expect(outcome.finished.outcome).toMatchObject({ type: 'success' });
    expect(
      lostAll.messages.filter((m) => m.role === 'assistant' && m.content === 'Redelivery in the morning; refunded 80.'),
    ).toHaveLength(1);
    expect((await handle(workflowId).describe()).runId).toBe(runBefore);

    // The run closed: the accept again is 409 run_closed (not 404), over AG-UI and REST; nothing runs again.
    const closed = await fetch(
      `${served.url}/agui`,
      json({
        threadId,
        runId: randomUUID(),
        messages: agent.messages,
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
        resume: [{ interruptId: review.id, status: 'resolved', payload: { type: 'accept' } }],
      }),
    );
    expect(await errorOf(closed)).toMatchObject({ status: 409, code: 'run_closed' });
    const restReview = await fetch(
      `${served.url}/runs/${encodeURIComponent(workflowId)}/reviews/${encodeURIComponent(review.toolCallId!)}`,
      json({ argsHash: (review.metadata as { argsHash: string }).argsHash, decision: { type: 'accept' } }),
    );
    expect(await errorOf(restReview)).toMatchObject({ status: 409, code: 'run_closed' });
    expect(
      await errorOf(
        await fetch(`${served.url}/runs/${encodeURIComponent(workflowId)}/answer`, json({ answer: 'morning' })),
      ),
    ).toMatchObject({ status: 409, code: 'run_closed' });
    expect(
      await errorOf(await fetch(`${served.url}/runs/never-${randomUUID()}/answer`, json({ answer: 'morning' }))),
    ).toMatchObject({ status: 404, code: 'unknown_run' });
    expect(calls.issue_refund! - before).toBe(1);
  });

  it("a person's words to a thread waiting on a question answer it; a cancelled question ends the window cancelled", async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-51' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-51', window: 'afternoon' }),
      scriptStep.text('Booked for the afternoon.'),
    ]));
    const threadId = `agui-${randomUUID()}`;
    const agent = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Redeliver A-51.' }],
    });
    await runOnce(agent);
    expect(agent.pendingInterrupts[0]).toMatchObject({ reason: 'input_required' });
    // Another tab (a new agent on the thread) sends a new user message, no resume: it answers the open question.
    const tab = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [...structuredClone(agent.messages), { id: 'u2', role: 'user', content: 'afternoon please' }],
    });
    const answered = await runOnce(tab);
    const delivery = answered.events.find(
      (e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'cairn.delivery',
    ) as unknown as { value: { delivery: string } };
    expect(delivery.value.delivery).toBe('answered');
    expect(answered.finished.outcome).toMatchObject({ type: 'success' });
    expect(answered.finished.result).toMatchObject({ answer: 'Booked for the afternoon.' });

    // Another thread: the question cancelled over AG-UI cancels the run, and the window says cancelled.
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-52' }),
      scriptStep.text('Nothing booked.'),
    ]));
    const other = new HttpAgent({
      url: `${served.url}/agui`,
      threadId: `agui-${randomUUID()}`,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Redeliver A-52.' }],
    });
    await runOnce(other);
    const cancelled = await runOnce(other, {
      resume: [{ interruptId: other.pendingInterrupts[0]!.id, status: 'cancelled' }],
    });
    expect(cancelled.finished.outcome).toMatchObject({ type: 'cancelled' });
    // A client that lost that window asks again: the closed run's outcome is cancelled too, not success.
    const otherThread = other.threadId;
    const lost = new HttpAgent({
      url: `${served.url}/agui`,
      threadId: otherThread,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Redeliver A-52.' }],
    });
    await handle(`cairn-thread-${otherThread}`).result();
    expect((await runOnce(lost)).finished.outcome).toMatchObject({ type: 'cancelled' });
  });
});

describe('exactly one decision wins', () => {
  it('two identical accepts at once: one 200, one 409 already_decided naming the decision that counted', async () => {
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-61', amount: 70 }),
      scriptStep.text('Refunded 70.'),
    ]));
    const before = calls.issue_refund ?? 0;
    const started = await fetch(
      `${served.url}/runs`,
      json({ prompt: 'Refund 70 on A-61.', threadId: `once-${randomUUID()}` }),
    );
    const { runId } = (await started.json()) as { runId: string };
    const review = (await awaiting(handle(runId), 'awaiting_review')).reviews[0]!;
    const url = `${served.url}/runs/${encodeURIComponent(runId)}/reviews/${encodeURIComponent(review.toolCallId)}`;
    const both = await Promise.all([
      fetch(url, json({ argsHash: review.argsHash, decision: { type: 'accept' } })),
      fetch(url, json({ argsHash: review.argsHash, decision: { type: 'accept' } })),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = await errorOf(both.find((r) => r.status === 409)!);
    expect(refused).toMatchObject({
      code: 'already_decided',
      message: expect.stringContaining('{"type":"accept"} counted'),
    });
    await handle(runId).result();
    expect(calls.issue_refund! - before).toBe(1);
  });

  it('two identical answers at once: one 200, one 409 already_decided naming the answer that counted', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-62' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-62', window: 'morning' }),
      scriptStep.text('Booked.'),
    ]));
    const started = await fetch(
      `${served.url}/runs`,
      json({ prompt: 'Redeliver A-62.', threadId: `once-${randomUUID()}` }),
    );
    const { runId } = (await started.json()) as { runId: string };
    const asked = (await awaiting(handle(runId), 'awaiting_clarification')).clarification!;
    const url = `${served.url}/runs/${encodeURIComponent(runId)}/answer`;
    const both = await Promise.all([
      fetch(url, json({ answer: { window: 'morning' }, questionId: asked.id })),
      fetch(url, json({ answer: { window: 'morning' }, questionId: asked.id })),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await errorOf(both.find((r) => r.status === 409)!)).toMatchObject({
      code: 'already_decided',
      message: expect.stringContaining('{"window":"morning"} counted'),
    });
    expect(await handle(runId).result()).toMatchObject({ answer: 'Booked.' });
  });
});

describe('a run that failed', () => {
  it('ends the AG-UI window with RUN_ERROR, the chat with an error, and reads FAILED', async () => {
    model = 'foo:bar'; // an unknown provider: the run fails (model_misconfigured)
    const threadId = `fail-${randomUUID()}`;
    const agent = new HttpAgent({
      url: `${served.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'Hello.' }],
    });
    const events: BaseEvent[] = [];
    await agent.runAgent(undefined, { onEvent: ({ event }) => void events.push(event) }).catch(() => undefined);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'run_failed',
      message: expect.stringContaining('model_misconfigured'),
    });
    expect(events.some((e) => e.type === 'RUN_FINISHED')).toBe(false);
    const read = (await (
      await fetch(`${served.url}/runs/${encodeURIComponent(`cairn-thread-${threadId}`)}`)
    ).json()) as { status: string; state: { failure?: { type: string } } };
    expect(read).toMatchObject({ status: 'FAILED', state: { failure: { type: 'model_misconfigured' } } });

    const chat = new TestChat({
      id: `fail-${randomUUID()}`,
      transport: new DefaultChatTransport<UIMessage>({ api: `${served.url}/chat` }),
    });
    await chat.sendMessage({ text: 'Hello.' });
    await chat.settled().catch(() => undefined);
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toMatch(/^run_failed: model_misconfigured/);
  });
});
