/**
 * Other agents reach runs over A2A: the real `@a2a-js/sdk` client drives runs on a real dev server
 * through `createCairnA2AHandler`. A clarification and a review are input-required states carrying
 * what is asked as data; the answer and the decision go in later messages of the same task, one of
 * them through an A2A server in a process of its own after the first one stopped;
 * a stale decision is refused by the run's validator; the `once` tool runs once; cancel, unknown
 * tasks, malformed and oversized requests and a wrong token get A2A's own errors. Two tenants
 * (`authorize` says who asks) each reach only their own tasks and contexts: the other's task is
 * TaskNotFound, word for word as one that never was.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Role,
  SendMessageRequest,
  TaskState,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client as A2AClient,
} from '@a2a-js/sdk/client';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { INPUT_REQUIRED_MEDIA_TYPE } from '../servers/a2a/a2a-task.js';
import { bearerToken } from '../servers/http/authorize.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { connectClient, serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';

let w: TestWorker;
let one: Served | undefined;
let two: Served;
let model = '';
const clients: CairnClient[] = [];

async function newCairnClient(): Promise<CairnClient> {
  const client = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  clients.push(client);
  return client;
}

function handlerOn(client: CairnClient, token?: string) {
  return createCairnA2AHandler({
    client,
    agents: [testAgent],
    maxBodyBytes: 64 * 1024,
    ...(token && { authorize: bearerToken(token) }),
    startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    onError: () => undefined,
  });
}

beforeAll(async () => {
  w = await startTestWorker();
  one = await serve(handlerOn(await newCairnClient()));
  two = await serve(handlerOn(await newCairnClient()));
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  for (const c of clients) await c.close();
  await w?.stop();
});

/** The A2A server of test/fixtures/a2a-server.ts in its own process, on this worker's queue. */
async function serverProcess(): Promise<{ url: string; close(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'test/fixtures/a2a-server.ts')], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: serverAddress(), TASK_QUEUE: w.taskQueue },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const found = /a2a ready (\S+)/.exec(chunk.toString());
      if (found) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the A2A server process exited (${code})`)));
  });
  return { url, close: () => void child.kill('SIGTERM') };
}

function a2aClient(url: string, headers: Record<string, string> = {}): Promise<A2AClient> {
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [key, value] of Object.entries(headers)) merged.set(key, value);
    return fetch(input, { ...init, headers: merged });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(`${url}/test/`); // the card below the agent's path
}

function send(
  parts: unknown[],
  extra: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts,
      ...(extra.taskId && { taskId: extra.taskId }),
      ...(extra.contextId && { contextId: extra.contextId }),
    },
    ...(extra.returnImmediately && { configuration: { returnImmediately: true } }),
  });
}

function asTask(result: Message | Task): Task {
  expect('status' in result).toBe(true);
  return result as Task;
}

function inputRequired(task: Task): Record<string, any> {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const part = task.status!.message!.parts.find((p: Part) => p.mediaType === INPUT_REQUIRED_MEDIA_TYPE);
  expect(part?.content?.$case).toBe('data');
  return (part!.content as { value: Record<string, any> }).value;
}

async function rejects(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { name: string; message: string };
  }
  throw new Error('expected a rejection');
}

describe('A2A server', () => {
  it('serves an honest agent card', async () => {
    const card = (await (await fetch(`${two.url}/test/.well-known/agent-card.json`)).json()) as any;
    expect(card).toMatchObject({
      name: 'test',
      capabilities: { streaming: true, pushNotifications: true },
      // One URL, both bindings: JSON-RPC, and HTTP+JSON's paths below it.
      supportedInterfaces: [
        { protocolBinding: 'JSONRPC', protocolVersion: '1.0', url: `${two.url}/test` },
        { protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', url: `${two.url}/test` },
      ],
    });
    expect(card.skills[0].tags).toContain('issue_refund');
    const root = (await (await fetch(`${two.url}/.well-known/agent-card.json`)).json()) as any;
    expect(root.name).toBe('test');
  });

  it('a clarification and a review, answered in later messages of the task (one through a server in another process after the first stopped), complete the task; the once tool runs once', {
    timeout: 180_000,
  }, async () => {
    // Minutes, not the default one: it starts a second A2A server as a process (tsx, the SDKs), seconds when idle.
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }), // no window: a question
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
      scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }), // over 50: a review
      scriptStep.text('Refunded 80 on A-1001; redelivery in the morning.'),
    ]));
    const refundsBefore = calls.issue_refund ?? 0;
    const contextId = `ctx-${randomUUID()}`;
    const first = await a2aClient(one!.url);
    const asked = asTask(
      await first.sendMessage(send([{ text: 'A-1001 is late: redeliver it and refund 80.' }], { contextId })),
    );
    expect(asked.contextId).toBe(contextId);
    expect(asked.id).toMatch(/^cairn-a2a-test-/);
    const question = inputRequired(asked).question;
    expect(question).toMatchObject({
      question: 'Which delivery window suits you: morning or afternoon?',
      missingFields: ['window'],
      schema: { type: 'object', required: ['window'] },
    });

    // The first server stops; a new one, in a process of its own, continues the same task.
    await one!.close();
    one = undefined;
    const restarted = await serverProcess();
    try {
      const second = await a2aClient(restarted.url);
      const reviewing = asTask(
        await second.sendMessage(send([{ data: { answer: { window: 'morning' } } }], { taskId: asked.id })),
      );
      const { reviews } = inputRequired(reviewing);
      expect(reviews).toEqual([
        expect.objectContaining({
          name: 'issue_refund',
          args: { orderId: 'A-1001', amount: 80 },
          allowed: ['accept', 'edit', 'respond', 'reject'],
        }),
      ]);
      const held = reviews[0];

      // A decision about other arguments is refused by the run's validator: nothing is lost.
      const stale = await rejects(
        second.sendMessage(
          send([{ data: { decision: 'accept', toolCallId: held.toolCallId, argsHash: 'not-the-hash' } }], {
            taskId: asked.id,
          }),
        ),
      );
      expect(stale.message).toMatch(/stale_review/);
      expect(inputRequired(await second.getTask({ tenant: '', id: asked.id })).reviews[0].argsHash).toBe(held.argsHash);

      // The decision on yet another instance, streamed: working, the answer artifact, completed.
      const third = await a2aClient(two.url);
      const events: StreamResponse[] = [];
      for await (const event of third.sendMessageStream(
        send([{ data: { decision: 'accept', toolCallId: held.toolCallId, argsHash: held.argsHash } }], {
          taskId: asked.id,
        }),
      ))
        events.push(event);
      expect(events[0]!.payload?.$case).toBe('task');
      const cases = events.map((e) => e.payload?.$case);
      expect(cases).toContain('artifactUpdate');
      const last = events.at(-1)!.payload;
      expect(last?.$case).toBe('statusUpdate');
      expect((last!.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const done = await second.getTask({ tenant: '', id: asked.id, historyLength: 50 });
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The history is the A2A exchange: the request, each input-required turn, each reply, the answer.
      const exchange = done.history.map((m: Message) => [
        m.role === Role.ROLE_USER ? 'caller' : 'agent',
        ...m.parts.map((p: Part) =>
          p.content?.$case === 'text'
            ? p.content.value
            : Object.keys(p.content?.value ?? {})
                .sort()
                .join('+'),
        ),
      ]);
      expect(exchange).toEqual([
        ['caller', 'A-1001 is late: redeliver it and refund 80.'],
        ['agent', 'Which delivery window suits you: morning or afternoon?', 'kind+question'],
        ['caller', 'answer+questionId'],
        ['agent', expect.stringMatching(/^Held for review: issue_refund \(/), 'kind+reviews'],
        ['caller', 'decision+toolCallId'],
        ['agent', 'Refunded 80 on A-1001; redelivery in the morning.'],
      ]);
      expect(done.artifacts[0]?.parts[0]?.content).toEqual({
        $case: 'text',
        value: 'Refunded 80 on A-1001; redelivery in the morning.',
      });
      expect(calls.issue_refund! - refundsBefore).toBe(1);

      const listed = await second.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      });
      expect(listed.tasks.map((t) => t.id)).toEqual([asked.id]);
      // What the SDK client sends when an app leaves the status out (UNRECOGNIZED): no filter either.
      const unfiltered = await second.listTasks({ contextId } as Parameters<typeof second.listTasks>[0]);
      expect(unfiltered.tasks.map((t) => t.id)).toEqual([asked.id]);

      // A finished task takes no more messages and cannot be canceled.
      expect((await rejects(second.sendMessage(send([{ text: 'again' }], { taskId: asked.id })))).message).toMatch(
        /completed/,
      );
      expect((await rejects(second.cancelTask({ tenant: '', id: asked.id, metadata: undefined }))).name).toBe(
        'TaskNotCancelableError',
      );
    } finally {
      restarted.close();
    }
  });

  it('the HTTP+JSON binding (the SDK RestTransport): a question, a review, subscribe, list and get, on the same runs', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002', window: 'afternoon' }),
      scriptStep.call('issue_refund', { orderId: 'A-1002', amount: 90 }),
      scriptStep.text('Refunded 90 on A-1002; redelivery in the afternoon.'),
    ]));
    // The REST transport alone (createFrom would merge it beside JSON-RPC, which the card lists first).
    const rest = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(
      `${two.url}/test/`,
    );
    const contextId = `ctx-${randomUUID()}`;
    const asked = asTask(
      await rest.sendMessage(send([{ text: 'A-1002: redeliver it and refund 90.' }], { contextId })),
    );
    expect(inputRequired(asked).question).toMatchObject({ missingFields: ['window'] });
    const held = asTask(
      await rest.sendMessage(send([{ data: { answer: { window: 'afternoon' } } }], { taskId: asked.id })),
    );
    const review = inputRequired(held).reviews[0];
    expect(review).toMatchObject({ name: 'issue_refund', args: { orderId: 'A-1002', amount: 90 } });
    const events: StreamResponse[] = [];
    for await (const event of rest.sendMessageStream(
      send([{ data: { decision: 'accept', toolCallId: review.toolCallId, argsHash: review.argsHash } }], {
        taskId: asked.id,
      }),
    ))
      events.push(event);
    const last = events.at(-1)!.payload!;
    const state =
      last.$case === 'task' ? last.value.status?.state : (last.value as { status: { state: TaskState } }).status.state;
    expect(state).toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await rest.getTask({ tenant: '', id: asked.id, historyLength: 2 });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.history).toHaveLength(2);
    const listed = await rest.listTasks({ contextId } as Parameters<typeof rest.listTasks>[0]);
    expect(listed.tasks.map((t) => t.id)).toEqual([asked.id]);
    // Errors are the protocol's: an unknown task, a finished task that cannot be canceled.
    expect((await rejects(rest.getTask({ tenant: '', id: 'cairn-a2a-test-nope' }))).name).toBe('TaskNotFoundError');
    expect((await rejects(rest.cancelTask({ tenant: '', id: asked.id, metadata: undefined }))).name).toBe(
      'TaskNotCancelableError',
    );
    // Hostile paths and queries get the binding's errors, never a crash.
    const bad = await fetch(`${two.url}/test/tasks/${asked.id}?historyLength=lots`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/historyLength is a whole number/);
    expect((await fetch(`${two.url}/test/tasks/${asked.id}:explode`, { method: 'POST' })).status).toBe(404);
    const junk = await fetch(`${two.url}/test/message:send`, { method: 'POST', body: '{ nope' });
    expect(junk.status).toBe(400);
  });

  it('a question answered with a text part; cancel ends the waiting run gracefully as canceled', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002' }),
      scriptStep.call('wire_transfer', { account: 'ACC-1', amount: 5 }), // always reviewed
      scriptStep.text('Stopped as asked.'),
    ]));
    const client = await a2aClient(two.url);
    const asked = asTask(await client.sendMessage(send([{ text: 'Redeliver A-1002.' }])));
    expect(inputRequired(asked).question.schema.required).toEqual(['window']);
    // A decision while only a question waits is refused by the run (not_pending): nothing changes.
    expect(
      (
        await rejects(
          client.sendMessage(
            send([{ data: { decision: 'accept', toolCallId: 'x', argsHash: 'y' } }], { taskId: asked.id }),
          ),
        )
      ).message,
    ).toMatch(/not_pending/);
    const reviewing = asTask(await client.sendMessage(send([{ text: 'morning' }], { taskId: asked.id })));
    expect(inputRequired(reviewing).reviews[0]).toMatchObject({ name: 'wire_transfer', allowed: ['accept', 'reject'] });
    const canceled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const read = await client.getTask({ tenant: '', id: asked.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(calls.wire_transfer ?? 0).toBe(0);
  });

  it('subscribe follows a task until it waits; the task has its history; a run that fails is a failed task', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1004' }),
      scriptStep.text('Never reached.'),
    ]));
    const client = await a2aClient(two.url);
    const started = asTask(
      await client.sendMessage(send([{ text: 'Redeliver A-1004.' }], { returnImmediately: true })),
    );
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const events: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: started.id })) events.push(event);
    expect(events[0]!.payload?.$case).toBe('task');
    const last = events.at(-1)!.payload!;
    const state =
      last.$case === 'task' ? last.value.status?.state : (last.value as { status: { state: TaskState } }).status.state;
    expect(state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const read = await client.getTask({ tenant: '', id: started.id, historyLength: 10 });
    expect(read.history[0]).toMatchObject({
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'Redeliver A-1004.' } }],
    });
    expect((await client.getTask({ tenant: '', id: started.id, historyLength: 0 })).history).toEqual([]);
    await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });

    model = 'scripted:no-such-script';
    const failed = asTask(await client.sendMessage(send([{ text: 'Anything.' }])));
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect((await client.getTask({ tenant: '', id: failed.id })).status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('an A2A 0.3 client (message/send, tasks/get) reaches the same runs', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1005' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1005', window: 'afternoon' }),
      scriptStep.text('Afternoon it is.'),
    ]));
    const card = (await (await fetch(`${two.url}/test/.well-known/agent-card.json`)).json()) as any;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${two.url}/test`, preferredTransport: 'JSONRPC' });
    const rpc = async (method: string, params: unknown) =>
      (await (
        await fetch(card.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
        })
      ).json()) as any;
    const asked = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'Redeliver A-1005.' }],
      },
    });
    expect(asked.result).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    const data = asked.result.status.message.parts.find((p: any) => p.kind === 'data').data;
    expect(data.question.missingFields).toEqual(['window']);
    const done = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        taskId: asked.result.id,
        parts: [{ kind: 'data', data: { answer: { window: 'afternoon' } } }],
      },
    });
    expect(done.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect((await rpc('tasks/get', { id: asked.result.id })).result.artifacts[0].parts[0]).toMatchObject({
      kind: 'text',
      text: 'Afternoon it is.',
    });
    expect((await rpc('tasks/get', { id: 'no-such-task' })).error.code).toBe(-32001);
  });

  it('bad input gets A2A errors and loses nothing', async () => {
    const client = await a2aClient(two.url);
    expect((await rejects(client.getTask({ tenant: '', id: 'cairn-a2a-test-nope' }))).name).toBe('TaskNotFoundError');
    expect((await rejects(client.sendMessage(send([{ text: 'hi' }], { taskId: 'no-such-task' })))).name).toBe(
      'TaskNotFoundError',
    );
    expect((await rejects(client.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined }))).name).toBe(
      'TaskNotFoundError',
    );
    // A part written as JSON ({ text }) but handed to the typed client, which sends its `content` (none): the
    // refusal says the part had no content and what is read, not that a file was sent.
    const untyped = { messageId: randomUUID(), role: 1, parts: [{ text: 'hi' }] };
    const oldShape = await rejects(client.sendMessage({ message: untyped } as unknown as SendMessageRequest));
    expect(oldShape.message).toMatch(
      /Part 0 has no content the agent knows .*\{ "text": "…" \} or \{ "data": \{ … \} \}/,
    );
    const file = await rejects(client.sendMessage(send([{ url: 'https://example.invalid/a.pdf' }])));
    expect(file.message).toMatch(/Part 0 is a URL, which this agent does not read/);

    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${two.url}/test`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const malformed = await post('{ not json');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe(-32700);
    const unknownMethod = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Nope', params: {} }));
    expect(((await unknownMethod.json()) as any).error.code).toBe(-32601);
    const noParts = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } },
      }),
    );
    expect(((await noParts.json()) as any).error.code).toBe(-32602);
    const long = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(40_001) }] } },
      }),
    );
    expect(((await long.json()) as any).error).toMatchObject({
      code: -32602,
      message: 'The message is longer than 40000 characters.',
    });
    const big = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(100 * 1024) }] } },
      }),
    );
    expect(big.status).toBe(413);

    const guarded = await serve(handlerOn(clients[0]!, 'sesame'));
    try {
      const card = await fetch(`${guarded.url}/test/.well-known/agent-card.json`);
      expect(card.status).toBe(200);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 'x' } });
      const refused = await fetch(`${guarded.url}/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
        body,
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/Bearer/);
      const allowed = await fetch(`${guarded.url}/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sesame' },
        body,
      });
      expect(((await allowed.json()) as any).error.code).toBe(-32001);
    } finally {
      await guarded.close();
    }
  });

  it("two tenants: each starts its own tasks and reaches only them; the other tenant's task is TaskNotFound on every method, and its context is not shared", async () => {
    const scoped = await serve(
      createCairnA2AHandler({
        client: clients[0]!,
        agents: [testAgent],
        authorize: (request) => ({
          tenant: request.headers.get('x-tenant') ?? 'nobody',
          user: `${request.headers.get('x-tenant')}-person`,
        }),
        startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
        onError: () => undefined,
      }),
    );
    try {
      const acme = await a2aClient(scoped.url, { 'x-tenant': 'acme' });
      const globex = await a2aClient(scoped.url, { 'x-tenant': 'globex' });
      ({ model } = w.script([
        scriptStep.call('schedule_redelivery', { orderId: 'T-1' }),
        scriptStep.call('schedule_redelivery', { orderId: 'T-1', window: 'morning' }),
        scriptStep.text('Morning for acme.'),
      ]));
      const mine = asTask(await acme.sendMessage(send([{ text: 'Redeliver T-1.' }], { contextId: 'support-1' })));
      expect(inputRequired(mine).question.missingFields).toEqual(['window']);
      const described = await w.client.workflow.getHandle(mine.id).describe();
      expect(described.memo).toMatchObject({ cairnTenant: 'acme', cairnUser: 'acme-person' });

      ({ model } = w.script([
        scriptStep.call('schedule_redelivery', { orderId: 'T-2' }),
        scriptStep.text('Never reached.'),
      ]));
      const theirs = asTask(await globex.sendMessage(send([{ text: 'Redeliver T-2.' }], { contextId: 'support-1' })));
      expect(theirs.contextId).toBe('support-1');

      // Every method on acme's task, as globex: not found, as a task that never was.
      const never = `${mine.id.slice(0, -4)}beef`;
      const same = async (attempt: (id: string) => Promise<unknown>) => {
        const other = await rejects(attempt(mine.id));
        const none = await rejects(attempt(never));
        expect(other.name).toBe('TaskNotFoundError');
        expect(other.message.replaceAll(mine.id, '<id>')).toBe(none.message.replaceAll(never, '<id>'));
      };
      await same((id) => globex.getTask({ tenant: '', id }));
      await same((id) => globex.cancelTask({ tenant: '', id, metadata: undefined }));
      await same((id) => globex.sendMessage(send([{ data: { answer: { window: 'afternoon' } } }], { taskId: id })));
      await same((id) => globex.sendMessage(send([{ text: 'afternoon' }], { taskId: id })));
      await same(async (id) => {
        for await (const _ of globex.resubscribeTask({ tenant: '', id })) void _;
      });
      await same(async (id) => {
        for await (const _ of globex.sendMessageStream(send([{ text: 'afternoon' }], { taskId: id }))) void _;
      });
      const list = (client: A2AClient) =>
        client.listTasks({
          tenant: '',
          contextId: 'support-1',
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageToken: '',
          statusTimestampAfter: undefined,
        });
      expect((await list(globex)).tasks.map((t) => t.id)).toEqual([theirs.id]);
      expect((await list(acme)).tasks.map((t) => t.id)).toEqual([mine.id]);

      // None of it touched acme's task: still waiting on its question, and acme's answer completes it.
      expect(inputRequired(await acme.getTask({ tenant: '', id: mine.id })).question.missingFields).toEqual(['window']);
      const done = asTask(await acme.sendMessage(send([{ text: 'morning' }], { taskId: mine.id })));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await rejects(acme.getTask({ tenant: '', id: theirs.id }))).name).toBe('TaskNotFoundError');
      expect((await globex.cancelTask({ tenant: '', id: theirs.id, metadata: undefined })).status?.state).toBe(
        TaskState.TASK_STATE_CANCELED,
      );
    } finally {
      await scoped.close();
    }
  });
});
