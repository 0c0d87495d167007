/**
 * A2A push notifications, delivered by the run: the SDK client asks for them with its first
 * message (token and credentials), and a real HTTP receiver hears the task at each change — the
 * question, the held call, the end — in order, with the token and the Authorization it asked for,
 * as the protocol's JSON (`StreamResponse.fromJSON` reads it). The receiver is down while the run
 * moves on to its review: the activity retries until it is back, and nothing is lost. Configs are
 * listed, read and deleted through the protocol; a bad URL is refused before a run starts.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, StreamResponse, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { INPUT_REQUIRED_MEDIA_TYPE } from '../servers/a2a/a2a-task.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { waitFor } from './support/runs.js';
import { connectClient, startTestWorker, type TestWorker } from './support/temporal.js';

interface Heard {
  readonly headers: IncomingHttpHeaders;
  readonly task: Task;
}

/** A push receiver that can go down and come back on the same port. */
class Receiver {
  readonly heard: Heard[] = [];
  #server: Server | undefined;
  port = 0;

  async up(): Promise<void> {
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const event = StreamResponse.fromJSON(JSON.parse(body));
        if (event.payload?.$case === 'task') this.heard.push({ headers: request.headers, task: event.payload.value });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/a2a`;
  }

  states(): string[] {
    return this.heard.map(({ task }) => {
      const data = task.status?.message?.parts.find((p: Part) => p.mediaType === INPUT_REQUIRED_MEDIA_TYPE)?.content;
      const asked = data?.$case === 'data' ? (data.value as { question?: unknown; reviews?: unknown[] }) : undefined;
      const what = asked ? (asked.question ? ':question' : asked.reviews?.length ? ':review' : '') : '';
      return `${TaskState[task.status!.state]}${what}`;
    });
  }
}

let w: TestWorker;
let client: CairnClient;
let web: Served;
let model = '';
const receiver = new Receiver();

beforeAll(async () => {
  w = await startTestWorker();
  client = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  web = await serve(
    createCairnA2AHandler({
      client,
      agents: [testAgent],
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '5m' } }),
      onError: () => undefined,
    }),
  );
  await receiver.up();
});
afterAll(async () => {
  await receiver.down();
  await web?.close();
  await client?.close();
  await w?.stop();
});

function send(parts: unknown[], extra: Record<string, unknown> = {}): SendMessageRequest {
  const { configuration, ...message } = extra;
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...message },
    ...(configuration ? { configuration } : {}),
  });
}

describe('A2A push notifications', () => {
  it('the receiver hears the question, the review and the end, in order, though it was down in between', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1002', window: 'afternoon' }),
      scriptStep.call('issue_refund', { orderId: 'A-1002', amount: 90 }),
      scriptStep.text('Refunded 90 on A-1002; redelivery in the afternoon.'),
    ]));
    const a2a = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      `${web.url}/test/`,
    );
    const card = await a2a.getAgentCard();
    expect(card.capabilities?.pushNotifications).toBe(true);

    const asked = (await a2a.sendMessage(
      send([{ text: 'A-1002: redeliver it and refund 90.' }], {
        configuration: {
          taskPushNotificationConfig: {
            id: 'hook-1',
            url: receiver.url,
            token: 'task-token-1',
            authentication: { scheme: 'Bearer', credentials: 'receiver-secret' },
          },
        },
      }),
    )) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await waitFor(
      async () => receiver.states().includes('TASK_STATE_INPUT_REQUIRED:question') || undefined,
      'the question notification',
    );
    const first = receiver.heard.at(-1)!;
    expect(first.headers['x-a2a-notification-token']).toBe('task-token-1');
    expect(first.headers.authorization).toBe('Bearer receiver-secret');
    expect(first.headers['content-type']).toBe('application/a2a+json');
    expect(first.task.id).toBe(asked.id);
    expect(first.task.contextId).toBe(asked.contextId);

    // The protocol reads the config back.
    const listed = await a2a.listTaskPushNotificationConfig({
      tenant: '',
      taskId: asked.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => [c.id, c.url, c.token])).toEqual([['hook-1', receiver.url, 'task-token-1']]);
    expect((await a2a.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: 'hook-1' })).url).toBe(
      receiver.url,
    );

    // Down while the run moves on to its review: the activity keeps trying.
    await receiver.down();
    const held = (await a2a.sendMessage(
      send([{ data: { answer: { window: 'afternoon' } } }], { taskId: asked.id }),
    )) as Task;
    expect(held.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await waitFor(async () => {
      const { pendingActivities } = await client
        .run(asked.id)
        .workflow.describe()
        .then((d) => d.raw);
      return (
        (pendingActivities ?? []).some((a) => a.activityType?.name === 'postRunStatus' && (a.attempt ?? 0) >= 2) ||
        undefined
      );
    }, 'a failed delivery being retried');
    await receiver.up();
    await waitFor(
      async () => receiver.states().includes('TASK_STATE_INPUT_REQUIRED:review') || undefined,
      'the review notification, once the receiver is back',
    );

    const review = (
      held.status!.message!.parts.find((p: Part) => p.mediaType === INPUT_REQUIRED_MEDIA_TYPE)!.content as {
        value: { reviews: { toolCallId: string; argsHash: string }[] };
      }
    ).value.reviews[0]!;
    await a2a.sendMessage(
      send([{ data: { decision: 'accept', toolCallId: review.toolCallId, argsHash: review.argsHash } }], {
        taskId: asked.id,
      }),
    );
    await waitFor(async () => receiver.states().includes('TASK_STATE_COMPLETED') || undefined, 'the end');
    await client.run(asked.id).workflow.result();

    const states = receiver.states().filter((s, i, all) => s !== all[i - 1]);
    expect(states.slice(states.indexOf('TASK_STATE_INPUT_REQUIRED:question'))).toEqual([
      'TASK_STATE_INPUT_REQUIRED:question',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED:review',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    const end = receiver.heard.at(-1)!.task;
    expect(end.artifacts[0]?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Refunded 90 on A-1002; redelivery in the afternoon.',
    });
    // A finished task takes no more configs.
    const late = await a2a
      .createTaskPushNotificationConfig({
        tenant: '',
        id: 'late',
        taskId: asked.id,
        url: receiver.url,
        token: '',
        authentication: undefined,
      })
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(late?.name).toBe('UnsupportedOperationError');
  });

  it('a bad push URL is refused before a run starts; configs are deleted through the protocol', async () => {
    ({ model } = w.script([scriptStep.call('schedule_redelivery', { orderId: 'A-1003' })]));
    const a2a = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      `${web.url}/test/`,
    );
    const contextId = `ctx-${randomUUID()}`;
    const refused = await a2a
      .sendMessage(
        send([{ text: 'A-1003: redeliver it.' }], {
          contextId,
          configuration: { taskPushNotificationConfig: { url: 'ftp://nowhere/hook' } },
        }),
      )
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(refused?.name).toBe('RequestMalformedError');
    expect(refused?.message).toMatch(/http\(s\) URL/);

    const asked = (await a2a.sendMessage(send([{ text: 'A-1003: redeliver it.' }], { contextId }))) as Task;
    const made = await a2a.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: asked.id,
      url: receiver.url,
      token: 't2',
      authentication: undefined,
    });
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
    await a2a.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id });
    expect(
      (await a2a.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs,
    ).toEqual([]);
    await client.run(asked.id).cancel('done with the test');
  });
});
