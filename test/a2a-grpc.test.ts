/**
 * A2A over gRPC: the SDK's own client, choosing the GRPC interface the card lists, drives runs on a
 * real dev server through `cairnA2AGrpcService` on a real `@grpc/grpc-js` server — a question, a
 * review, streaming to the end, GetTask and ListTasks — and a wrong token is UNAUTHENTICATED, not
 * an A2A error. The card comes from the web handler, as a client finds an agent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import {
  AgentCard,
  ListTasksRequest,
  SendMessageRequest,
  TaskState,
  type Message,
  type Part,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { cairnA2AGrpcService } from '../servers/a2a/grpc-binding.js';
import { INPUT_REQUIRED_MEDIA_TYPE } from '../servers/a2a/a2a-task.js';
import { bearerToken } from '../servers/http/authorize.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { connectClient, startTestWorker, type TestWorker } from './support/temporal.js';

const TOKEN = 'grpc-secret';
let w: TestWorker;
let client: CairnClient;
let web: Served;
let server: grpc.Server;
let grpcUrl = '';
let model = '';

beforeAll(async () => {
  w = await startTestWorker();
  client = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  grpcUrl = `127.0.0.1:${port}`;
  const options = {
    client,
    agents: [testAgent],
    authorize: bearerToken(TOKEN),
    startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    onError: () => undefined,
    grpcUrl,
  };
  const service = cairnA2AGrpcService(options);
  server.addService(service.definition, service.implementation);
  web = await serve(createCairnA2AHandler(options));
});
afterAll(async () => {
  server?.forceShutdown();
  await web?.close();
  await client?.close();
  await w?.stop();
});

async function grpcClient(token: string) {
  // The gRPC transport alone: the client cannot fall back to the card's JSON-RPC interface.
  const factory = new ClientFactory({ transports: [new GrpcTransportFactory()] });
  const card = await (
    await fetch(`${web.url}/test/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
  ).json();
  const a2a = await factory.createFromAgentCard(AgentCard.fromJSON(card));
  const auth = { serviceParameters: { authorization: `Bearer ${token}` } };
  return { a2a, auth };
}

function send(parts: unknown[], extra: { taskId?: string; contextId?: string } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra },
  });
}

function inputRequired(result: Message | Task): Record<string, any> {
  const task = result as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const part = task.status!.message!.parts.find((p: Part) => p.mediaType === INPUT_REQUIRED_MEDIA_TYPE);
  return (part!.content as { value: Record<string, any> }).value;
}

describe('A2A over gRPC', () => {
  it('the card lists the gRPC interface; the SDK gRPC client goes through a question and a review to the end', async () => {
    const card = (await (
      await fetch(`${web.url}/test/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; tenant?: string }[];
    };
    expect(card.supportedInterfaces).toContainEqual(
      expect.objectContaining({ url: grpcUrl, protocolBinding: 'GRPC', tenant: 'test' }),
    );

    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002', window: 'afternoon' }),
      scriptStep.call('issue_refund', { orderId: 'A-1002', amount: 90 }),
      scriptStep.text('Refunded 90 on A-1002; redelivery in the afternoon.'),
    ]));
    const { a2a, auth } = await grpcClient(TOKEN);
    const contextId = `ctx-${randomUUID()}`;
    const asked = (await a2a.sendMessage(
      send([{ text: 'A-1002: redeliver it and refund 90.' }], { contextId }),
      auth,
    )) as Task;
    expect(inputRequired(asked).question).toMatchObject({ missingFields: ['window'] });
    const held = await a2a.sendMessage(
      send([{ data: { answer: { window: 'afternoon' } } }], { taskId: asked.id }),
      auth,
    );
    const review = inputRequired(held).reviews[0];
    expect(review).toMatchObject({ name: 'issue_refund', args: { orderId: 'A-1002', amount: 90 } });
    const states: TaskState[] = [];
    for await (const event of a2a.sendMessageStream(
      send([{ data: { decision: 'accept', toolCallId: review.toolCallId, argsHash: review.argsHash } }], {
        taskId: asked.id,
      }),
      auth,
    )) {
      const payload = event.payload!;
      if (payload.$case === 'task') states.push(payload.value.status!.state);
      if (payload.$case === 'statusUpdate') states.push(payload.value.status!.state);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await a2a.getTask({ tenant: '', id: asked.id, historyLength: 10 }, auth);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Refunded 90 on A-1002; redelivery in the afternoon.',
    });
    const listed = await a2a.listTasks(ListTasksRequest.fromJSON({ contextId }), auth);
    expect(listed.tasks.map((t) => t.id)).toEqual([asked.id]);
  });

  it('a wrong token is UNAUTHENTICATED; an unknown task is TaskNotFound', async () => {
    const { a2a, auth } = await grpcClient('wrong');
    const refused = await a2a.getTask({ tenant: '', id: 'cairn-a2a-test-nope' }, auth).then(
      () => undefined,
      (error: unknown) => error as { code?: number; message: string },
    );
    expect(refused?.message).toMatch(/getTask: 16 Send Authorization: Bearer <token>/);
    const right = await grpcClient(TOKEN);
    const missing = await right.a2a.getTask({ tenant: '', id: 'cairn-a2a-test-nope' }, right.auth).then(
      () => undefined,
      (error: unknown) => error as { name: string },
    );
    expect(missing?.name).toBe('TaskNotFoundError');
  });
});
