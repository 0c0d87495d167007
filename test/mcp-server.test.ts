/**
 * IDE assistants and desktop clients reach runs over MCP: the real `@modelcontextprotocol/sdk`
 * Client calls the agent's tool over streamable HTTP through `createCairnMcpHandler`, on a real
 * dev server. With an elicitation handler, the run's question (its schema) and its held call are
 * elicitations and the call returns the answer; without one, the result says what is asked and the
 * next call (on a new server instance after the first one stopped, or `cairn mcp` in a process of
 * its own over stdio) answers it by run id; a stale
 * decision is refused by the run; the `once` tool runs once; a cancelled request cancels the run;
 * bad input gets MCP's errors. Two tenants (`authorize` says who asks) each reach only their own
 * runs and sessions: the other's run is `unknown_run`, word for word as one that never was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnMcpHandler, type CairnMcpHandler } from '../servers/mcp/cairn-mcp-handler.js';
import { bearerToken, type Authorize } from '../servers/http/authorize.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { waitFor } from './support/runs.js';
import { connectClient, serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let model = '';
const clients: CairnClient[] = [];
const opened: { served: Served; handler: CairnMcpHandler }[] = [];

async function newCairnClient(): Promise<CairnClient> {
  const client = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  clients.push(client);
  return client;
}

async function server(token?: string | Authorize): Promise<{ served: Served; handler: CairnMcpHandler; url: string }> {
  const handler = createCairnMcpHandler({
    client: await newCairnClient(),
    agents: [testAgent],
    basePath: '/mcp',
    maxBodyBytes: 64 * 1024,
    ...(token && { authorize: typeof token === 'string' ? bearerToken(token) : token }),
    startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    onError: () => undefined,
  });
  const served = await serve(handler);
  opened.push({ served, handler });
  return { served, handler, url: `${served.url}/mcp` };
}

async function mcpClient(
  url: string,
  elicit?: (request: ElicitRequest) => Promise<ElicitResult>,
  headers?: Record<string, string>,
): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), headers && { requestInit: { headers } }));
  return client;
}

beforeAll(async () => {
  w = await startTestWorker();
});
afterAll(async () => {
  for (const { served, handler } of opened) {
    await handler.close();
    await served.close();
  }
  for (const c of clients) await c.close();
  await w?.stop();
});

const refundScript = () =>
  w.script([
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }), // no window: a question
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
    scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }), // over 50: a review
    scriptStep.text('Refunded 80 on A-1001; redelivery in the morning.'),
  ]);

describe('MCP server over streamable HTTP', () => {
  it('lists one tool per agent', async () => {
    const { url } = await server();
    const client = await mcpClient(url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['test']);
    expect(tools[0]!.inputSchema.properties).toHaveProperty('runId');
    await client.close();
  });

  it('with elicitation: the question and the review are asked of the person, and the call returns the answer; the once tool runs once', async () => {
    ({ model } = refundScript());
    const refundsBefore = calls.issue_refund ?? 0;
    const asked: ElicitRequest['params'][] = [];
    const { url } = await server();
    const client = await mcpClient(url, async (request) => {
      asked.push(request.params);
      const schema = (request.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
      const content: Record<string, string> =
        'window' in schema.properties ? { window: 'morning' } : { decision: 'accept' };
      return { action: 'accept', content };
    });
    const result = (await client.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      answer: 'Refunded 80 on A-1001; redelivery in the morning.',
    });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({
      message: 'Which delivery window suits you: morning or afternoon?',
      requestedSchema: { type: 'object', required: ['window'] },
    });
    expect(asked[1]!.message).toMatch(/issue_refund/);
    expect(
      (asked[1] as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema
        .properties.decision.enum,
    ).toEqual(['accept', 'respond', 'reject']);
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    await client.close();
  });

  it('with tasks: the call is a task; its question and review are elicited through tasks/result; it completes with the answer, and another session reads it', async () => {
    ({ model } = refundScript());
    const { url } = await server();
    const asked: string[] = [];
    const client = await mcpClient(url, async (request) => {
      asked.push(request.params.message);
      const schema = (request.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
      const content: Record<string, string> =
        'window' in schema.properties ? { window: 'morning' } : { decision: 'accept' };
      return { action: 'accept', content };
    });
    const { tools } = await client.listTools();
    expect(tools[0]!.execution?.taskSupport).toBe('optional');
    const seen: string[] = [];
    let taskId = '';
    let final: CallToolResult | undefined;
    for await (const message of client.experimental.tasks.callToolStream({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    })) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'taskCreated' || message.type === 'taskStatus') seen.push(message.task.status);
      if (message.type === 'result') final = message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    expect(taskId).toMatch(/^cairn-mcp-test-/);
    expect(seen).toContain('input_required');
    expect(asked).toEqual([
      'Which delivery window suits you: morning or afternoon?',
      expect.stringMatching(/issue_refund/),
    ]);
    expect(final?.structuredContent).toMatchObject({
      status: 'completed',
      answer: 'Refunded 80 on A-1001; redelivery in the morning.',
    });
    await client.close();

    // The task is the run: a new session reads it, lists it, and cannot cancel what has ended.
    const other = await mcpClient(url);
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    const listed = await other.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await expect(other.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal/);
    await other.close();
  });

  it('with tasks, no elicitation: the task is input_required with what is asked; tasks/cancel cancels the run gracefully', async () => {
    ({ model } = refundScript());
    const { url } = await server();
    const client = await mcpClient(url);
    const stream = client.experimental.tasks.callToolStream(
      { name: 'test', arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated' });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    await stream.return(undefined);
    const task = await waitFor(async () => {
      const now = await client.experimental.tasks.getTask(taskId);
      return now.status === 'working' ? undefined : now;
    }, 'the task to wait for a person');
    expect(task.status).toBe('input_required');
    expect(task.statusMessage).toMatch(/Which delivery window suits you/);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(['working', 'cancelled']).toContain(cancelled.status);
    const ended = await clients[0]!.run(taskId).workflow.result();
    expect(ended.outcome).toMatchObject({ code: 'cancelled' });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    await client.close();
  });

  it('without elicitation: the result says what is asked; the next calls, on a new server after a restart, answer by run id; a stale decision is refused', async () => {
    ({ model } = refundScript());
    const refundsBefore = calls.issue_refund ?? 0;
    const first = await server();
    const client = await mcpClient(first.url);
    const asked = (await client.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    })) as CallToolResult;
    const waiting = asked.structuredContent as {
      runId: string;
      status: string;
      question: { id: string; schema: unknown };
      howToAnswer: string;
    };
    expect(waiting).toMatchObject({
      status: 'input_required',
      question: { missingFields: ['window'], schema: { type: 'object', required: ['window'] } },
    });
    expect(waiting.howToAnswer).toContain(waiting.runId);
    await client.close();
    await first.handler.close();
    await first.served.close();

    const second = await server();
    const again = await mcpClient(second.url);
    const reviewing = (await again.callTool({
      name: 'test',
      arguments: { runId: waiting.runId, answer: { window: 'morning' } },
    })) as CallToolResult;
    const held = (reviewing.structuredContent as { reviews: { toolCallId: string; argsHash: string; name: string }[] })
      .reviews[0]!;
    expect(held.name).toBe('issue_refund');
    const stale = (await again.callTool({
      name: 'test',
      arguments: {
        runId: waiting.runId,
        decisions: [{ toolCallId: held.toolCallId, argsHash: 'other', decision: 'accept' }],
      },
    })) as CallToolResult;
    expect(stale.isError).toBe(true);
    expect(JSON.stringify(stale.content)).toMatch(/stale_review/);
    const done = (await again.callTool({
      name: 'test',
      arguments: {
        runId: waiting.runId,
        decisions: [{ toolCallId: held.toolCallId, argsHash: held.argsHash, decision: 'accept' }],
      },
    })) as CallToolResult;
    expect(done.structuredContent).toMatchObject({
      runId: waiting.runId,
      status: 'completed',
      answer: 'Refunded 80 on A-1001; redelivery in the morning.',
    });
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    // A finished run takes no more answers; calling with its id alone reads its result.
    const closed = (await again.callTool({
      name: 'test',
      arguments: { runId: waiting.runId, answer: 'more' },
    })) as CallToolResult;
    expect(closed.isError).toBe(true);
    expect(JSON.stringify(closed.content)).toMatch(/closed/);
    expect(
      (await again.callTool({ name: 'test', arguments: { runId: waiting.runId } })).structuredContent,
    ).toMatchObject({ status: 'completed' });
    await again.close();
  });

  it('a person who declines the elicitation gets what is asked as the result; the run keeps waiting', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1006' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1006', window: 'morning' }),
      scriptStep.text('Morning.'),
    ]));
    const { url } = await server();
    let asked = 0;
    const client = await mcpClient(url, async () => (asked++, { action: 'decline' }));
    const waiting = (await client.callTool({
      name: 'test',
      arguments: { prompt: 'Redeliver A-1006.' },
    })) as CallToolResult;
    expect(asked).toBe(1);
    const { runId } = waiting.structuredContent as { runId: string };
    expect(waiting.structuredContent).toMatchObject({
      status: 'input_required',
      question: { missingFields: ['window'] },
    });
    expect((await clients.at(-1)!.run(runId).state()).phase).toBe('awaiting_clarification');
    const done = (await client.callTool({ name: 'test', arguments: { runId, answer: 'morning' } })) as CallToolResult;
    expect(done.structuredContent).toMatchObject({ status: 'completed', answer: 'Morning.' });
    await client.close();
  });

  it('a cancelled request cancels the run gracefully', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1003' }),
      scriptStep.text('Stopped as asked.'),
    ]));
    const { url } = await server();
    const abort = new AbortController();
    let runSeen: (() => void) | undefined;
    const elicited = new Promise<void>((resolve) => (runSeen = resolve));
    const client = await mcpClient(url, () => {
      runSeen!();
      return new Promise<ElicitResult>(() => undefined); // the person never answers
    });
    const call = client.callTool({ name: 'test', arguments: { prompt: 'Redeliver A-1003.' } }, undefined, {
      signal: abort.signal,
    });
    await elicited;
    abort.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    const cairn = clients.at(-1)!;
    // The run the call started is the newest of this queue's MCP runs.
    let workflowId: string | undefined;
    for await (const info of cairn.temporal.workflow.list({ query: `TaskQueue = '${w.taskQueue}'` }))
      if (info.workflowId.startsWith('cairn-mcp-test-') && !workflowId) workflowId = info.workflowId;
    // The cancel reaches the run when the server hears the client's notifications/cancelled.
    let state = await cairn.run(workflowId!).state();
    for await (const next of cairn.run(workflowId!).states({ intervalMs: 100 })) state = next;
    expect(state.phase).toBe('done');
    expect(state.finalizing).toBe('cancelled over MCP');
    expect(state.answer).toBe('Stopped as asked.');
    await client.close();
  });

  it('a session the server closes (a redeploy, an eviction) leaves the runs of its calls alone', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1004' }),
      scriptStep.text('Morning it is.'),
    ]));
    const { url, handler } = await server();
    let runSeen: (() => void) | undefined;
    const elicited = new Promise<void>((resolve) => (runSeen = resolve));
    const client = await mcpClient(url, () => {
      runSeen!();
      return new Promise<ElicitResult>(() => undefined);
    });
    void client.callTool({ name: 'test', arguments: { prompt: 'Redeliver A-1004.' } }).catch(() => undefined);
    await elicited;
    await handler.close();
    const cairn = clients.at(-1)!;
    let workflowId: string | undefined;
    for await (const info of cairn.temporal.workflow.list({ query: `TaskQueue = '${w.taskQueue}'` }))
      if (info.workflowId.startsWith('cairn-mcp-test-') && !workflowId) workflowId = info.workflowId;
    const run = cairn.run(workflowId!);
    // Still waiting on its question, not cancelled: answered, it finishes with the model's answer.
    const state = await run.untilIdle();
    expect(state).toMatchObject({ phase: 'awaiting_clarification', finalizing: null });
    await run.answer({ window: 'morning' });
    expect((await run.result()).answer).toBe('Morning it is.');
    await client.close().catch(() => undefined);
  });

  it('bad input gets MCP errors and loses nothing', async () => {
    const { url } = await server('sesame');
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: 'Bearer sesame',
          ...headers,
        },
        body,
      });
    expect((await post('{}', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('{ nope')).status).toBe(400);
    expect(
      (await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': 'gone' }))
        .status,
    ).toBe(404);
    expect(
      (await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { p: 'x'.repeat(100 * 1024) } })))
        .status,
    ).toBe(413);

    const client = new Client({ name: 'bad', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer sesame' } } }),
    );
    const unknown = (await client.callTool({
      name: 'test',
      arguments: { runId: 'cairn-mcp-test-nope', answer: 'x' },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toMatch(/unknown_run/);
    const neither = (await client.callTool({ name: 'test', arguments: {} })) as CallToolResult;
    expect(neither.isError).toBe(true);
    const both = (await client.callTool({ name: 'test', arguments: { prompt: 'x', runId: 'y' } })) as CallToolResult;
    expect(both.isError).toBe(true);
    const badDecision = (await client.callTool({
      name: 'test',
      arguments: { runId: 'r', decisions: [{ toolCallId: 't', argsHash: 'h', decision: 'maybe' }] },
    })) as CallToolResult;
    expect(badDecision.isError).toBe(true);
    await client.close();
  });

  it('`cairn mcp`, in a process of its own, continues over stdio a run another server started', async () => {
    ({ model } = refundScript());
    const refundsBefore = calls.issue_refund ?? 0;
    const http = await mcpClient((await server()).url);
    const asked = (await http.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    })) as CallToolResult;
    const { runId } = asked.structuredContent as { runId: string };
    await http.close();

    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_')),
    ) as Record<string, string>;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(PACKAGE_ROOT, 'cli', 'main.ts'),
        'mcp',
        '--config',
        'test/fixtures/mcp.config.ts',
        '--task-queue',
        w.taskQueue,
      ],
      cwd: PACKAGE_ROOT,
      env: { ...env, TEMPORAL_ADDRESS: serverAddress() },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['helper', 'test']);
      const reviewing = (await client.callTool({
        name: 'test',
        arguments: { runId, answer: { window: 'morning' } },
      })) as CallToolResult;
      const held = (reviewing.structuredContent as { reviews: { toolCallId: string; argsHash: string }[] }).reviews[0]!;
      const done = (await client.callTool({
        name: 'test',
        arguments: { runId, decisions: [{ toolCallId: held.toolCallId, argsHash: held.argsHash, decision: 'accept' }] },
      })) as CallToolResult;
      expect(done.structuredContent).toMatchObject({
        runId,
        status: 'completed',
        answer: 'Refunded 80 on A-1001; redelivery in the morning.',
      });
      expect(calls.issue_refund! - refundsBefore).toBe(1);
      // A run of another agent is not this tool's.
      expect(JSON.stringify((await client.callTool({ name: 'helper', arguments: { runId } })).content)).toMatch(
        /unknown_run/,
      );
    } finally {
      await client.close();
    }
  });

  it("two tenants: each starts its own runs and reaches only them; the other tenant's run is unknown_run on every call, and its session is not found", async () => {
    const { url } = await server((request) => ({
      tenant: request.headers.get('x-tenant') ?? 'nobody',
      user: `${request.headers.get('x-tenant')}-person`,
    }));
    const acme = await mcpClient(url, undefined, { 'x-tenant': 'acme' });
    const globex = await mcpClient(url, undefined, { 'x-tenant': 'globex' });
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'T-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'T-1', window: 'morning' }),
      scriptStep.text('Morning for acme.'),
    ]));
    const asked = (await acme.callTool({ name: 'test', arguments: { prompt: 'Redeliver T-1.' } })) as CallToolResult;
    const { runId } = asked.structuredContent as { runId: string };
    expect(asked.structuredContent).toMatchObject({
      status: 'input_required',
      question: { missingFields: ['window'] },
    });
    expect((await clients.at(-1)!.temporal.workflow.getHandle(runId).describe()).memo).toMatchObject({
      cairnTenant: 'acme',
      cairnUser: 'acme-person',
    });

    // Every way of reaching acme's run, as globex: refused as a run that never was.
    const never = `${runId.slice(0, -4)}beef`;
    const attempts: Record<string, unknown>[] = [
      {},
      { answer: { window: 'afternoon' } },
      { answer: 'afternoon' },
      { decisions: [{ toolCallId: 't', argsHash: 'h', decision: 'accept' }] },
      { budget: { type: 'stop' } },
    ];
    for (const attempt of attempts) {
      const other = (await globex.callTool({ name: 'test', arguments: { runId, ...attempt } })) as CallToolResult;
      const none = (await globex.callTool({ name: 'test', arguments: { runId: never, ...attempt } })) as CallToolResult;
      expect(other.isError).toBe(true);
      expect(JSON.stringify(other.content)).toMatch(/unknown_run/);
      expect(JSON.stringify(other.content).replaceAll(runId, '<id>')).toBe(
        JSON.stringify(none.content).replaceAll(never, '<id>'),
      );
    }
    // acme's session, used by globex: not found, as a session that never was.
    const sessionId = (acme.transport as StreamableHTTPClientTransport).sessionId!;
    const post = (session: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-tenant': 'globex',
          'mcp-session-id': session,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const stolen = await post(sessionId);
    const gone = await post('no-such-session');
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).toBe(await gone.text());

    // None of it touched acme's run: still waiting, and acme's answer completes it.
    expect((await acme.callTool({ name: 'test', arguments: { runId } })).structuredContent).toMatchObject({
      status: 'input_required',
    });
    const done = (await acme.callTool({ name: 'test', arguments: { runId, answer: 'morning' } })) as CallToolResult;
    expect(done.structuredContent).toMatchObject({ status: 'completed', answer: 'Morning for acme.' });
    await acme.close();
    await globex.close();
  });
});
