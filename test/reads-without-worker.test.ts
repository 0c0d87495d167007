/**
 * Reads need no worker: runs wait on a person or have finished, then EVERY worker stops, and each
 * read path answers at once with the right status and phase, marked stale, without waiting on a
 * Query: the servers' read deadline is ten minutes, so a read that asked the run would run past the
 * test's timeout. The server still lists the stopped worker's last poll for a minute or more, so one
 * read first finds that nobody answers (worker-presence.ts); every read after it knows. A2A GetTask and ListTasks through
 * the real `@a2a-js/sdk` JSON-RPC client, the MCP `{ runId }` call and tasks/list through the MCP
 * SDK Client, the HTTP run state and the inbox, `cairn show` as a subprocess (the command timed
 * without Node's start, which alone takes seconds on a loaded machine), a finished run's events (whole)
 * and A2A push configs, and the typed client's `state({ deadlineMs })` and `transcript({}, {})`. Lists are read from visibility alone (no Query per run): they
 * answer in a fraction of the deadline. Each time is printed. Waits on conditions, never on sleeps.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@temporalio/client';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { INPUT_REQUIRED_MEDIA_TYPE } from '../servers/a2a/a2a-task.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import type { InboxPage } from '../servers/http/inbox.js';
import { createCairnMcpHandler, type CairnMcpHandler } from '../servers/mcp/cairn-mcp-handler.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import { CairnPhase, ENDED_MEMO, WAITING_MEMO, type RunState } from '../workflows/contract/index.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { waitFor } from './support/runs.js';
import { connectClient, serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

/** The servers' read deadline: a read that waited on a Query would not answer within the test's timeout. */
const LONG_DEADLINE_MS = 10 * 60_000;

let w: TestWorker;
let stopped = false;
/** The servers' own connection: it outlives the worker's. */
let own: Client;
let client: CairnClient;
let http: Served;
let a2a: Served;
let mcp: Served;
let mcpHandler: CairnMcpHandler;
/** The model of the next run a server starts. */
let model = '';
const timings: [string, number][] = [];

/** A model that asks to refund 80 (held for review), or one that answers at once. */
const review = (orderId: string) =>
  w.script([scriptStep.call('issue_refund', { orderId, amount: 80 }), scriptStep.text('Refunded.')]).model;
const answer = (text: string) => w.script([scriptStep.text(text)]).model;

beforeAll(async () => {
  [w, own] = await Promise.all([startTestWorker(), connectClient()]);
  client = new CairnClient({ client: own, taskQueue: w.taskQueue, readDeadlineMs: LONG_DEADLINE_MS });
  const startOptions = () => ({ model, temporal: { workflowExecutionTimeout: '3m' } });
  http = await serve(createCairnHttpHandler({ client, agents: [testAgent], startOptions }));
  a2a = await serve(createCairnA2AHandler({ client, agents: [testAgent], startOptions, onError: () => undefined }));
  mcpHandler = createCairnMcpHandler({ client, agents: [testAgent], basePath: '/mcp', startOptions });
  mcp = await serve(mcpHandler);
});
afterAll(async () => {
  await mcpHandler?.close();
  for (const s of [http, a2a, mcp]) await s?.close();
  if (!stopped) await w?.stop();
  await own?.connection.close();
  if (timings.length > 0)
    console.log(
      `Reads with no worker (deadline ${client.readDeadlineMs} ms):\n${timings.map(([what, ms]) => `  ${ms.toString().padStart(5)} ms  ${what}`).join('\n')}`,
    );
});

/** `read()`, timed (printed, not asserted: answering at all before the long deadline is the point). */
async function timed<T>(what: string, read: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await read();
  timings.push([what, Date.now() - started]);
  return value;
}

function a2aClient() {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory()],
  });
  return new ClientFactory(options).createFromUrl(`${a2a.url}/test/`);
}

function sendText(text: string, contextId: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], contextId },
  });
}

async function mcpClient(): Promise<McpClient> {
  const c = new McpClient({ name: 'test-client', version: '1.0.0' }, { capabilities: {} });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
  return c;
}

async function callTool(c: McpClient, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.callTool({ name: 'test', arguments: args })) as CallToolResult;
}

/**
 * `cairn …args` as a subprocess (test/fixtures/timed-cairn.ts: the command as `cairn` runs it);
 * its exit code, output, the command's own time (`ms`, without Node's start) and the wall time.
 */
function cairn(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string; ms: number; wallMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(PACKAGE_ROOT, 'test', 'fixtures', 'timed-cairn.ts'), ...args],
      {
        cwd: PACKAGE_ROOT,
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_'))),
          TEMPORAL_ADDRESS: serverAddress(),
        },
        timeout: 50_000,
      },
      (error, stdout, allStderr) => {
        const timing = /\ncairn-ms (\d+)\n$/.exec(`\n${allStderr}`);
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr: timing ? allStderr.slice(0, allStderr.length - timing[0].length + 1) : allStderr,
          ms: timing ? Number(timing[1]) : Number.POSITIVE_INFINITY,
          wallMs: Date.now() - started,
        });
      },
    );
  });
}

/** Waits until visibility lists the run as `ready` says (the lists read nothing else). */
function listed(workflowId: string, ready: (memo: Record<string, unknown>, phase?: string) => boolean, what: string) {
  return waitFor(async () => {
    for await (const info of own.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      if (info.runId && ready(info.memo ?? {}, info.typedSearchAttributes.get(CairnPhase))) return true;
    return undefined;
  }, `${workflowId}: ${what}`);
}
const waitingListed = (id: string) =>
  listed(id, (memo, phase) => phase === 'awaiting_review' && Boolean(memo[WAITING_MEMO]), 'waiting, in visibility');
const endedListed = (id: string) => listed(id, (memo) => Boolean(memo[ENDED_MEMO]), 'ended, in visibility');

describe('reads with every worker stopped', () => {
  it('every read path answers at once, with the right status and phase, marked stale, asking no worker', {
    timeout: 120_000,
  }, async () => {
    const contextId = `ctx-${randomUUID()}`;
    const agentClient = await a2aClient();

    // Runs that wait on a person and runs that finished, through each surface.
    model = review('A-1');
    const a2aWaiting = (await agentClient.sendMessage(sendText('Refund A-1: 80.', contextId))) as Task;
    expect(a2aWaiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    model = answer('Nothing to refund.');
    const a2aDone = (await agentClient.sendMessage(sendText('Anything to refund?', contextId))) as Task;
    expect(a2aDone.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const before = await mcpClient();
    model = review('M-1');
    const mcpWaiting = (await callTool(before, { prompt: 'Refund M-1: 80.' })).structuredContent as { runId: string };
    expect(mcpWaiting).toMatchObject({ status: 'input_required' });
    model = answer('All done over MCP.');
    const mcpDone = (await callTool(before, { prompt: 'Anything over MCP?' })).structuredContent as { runId: string };
    expect(mcpDone).toMatchObject({ status: 'completed' });
    await before.close();

    model = review('H-1');
    const started = await fetch(`${http.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'test', prompt: 'Refund H-1: 80.' }),
    });
    const httpWaiting = ((await started.json()) as { runId: string }).runId;
    expect((await client.run(httpWaiting).untilIdle()).phase).toBe('awaiting_review');
    const typed = await client.start({ agent: 'test', prompt: 'Anything typed?', model: answer('Typed answer.') });
    expect((await typed.result()).answer).toBe('Typed answer.');

    // With the worker, cairn show reads the run itself.
    const fresh = await cairn(['show', typed.workflowId]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).not.toContain('No worker answered');

    // Every worker stops. Lists read visibility: wait until it shows what the runs published.
    await w.stop();
    stopped = true;
    for (const id of [a2aWaiting.id, mcpWaiting.runId, httpWaiting]) await waitingListed(id);
    for (const id of [a2aDone.id, mcpDone.runId, typed.workflowId]) await endedListed(id);
    // The worker's last poll is still listed: the first read asks, and finds nobody answers in its deadline.
    const first = await timed('first read after the stop (a 1 s deadline, waited out)', () =>
      client.run(httpWaiting).state({ deadlineMs: 1_000 }),
    );
    expect(first).toMatchObject({ phase: 'awaiting_review', stale: true });

    // A2A, through the real JSON-RPC client: GetTask of a waiting task and of a finished one.
    const reader = await a2aClient();
    const got = await timed('A2A GetTask, waiting', () => reader.getTask({ tenant: '', id: a2aWaiting.id }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(got.metadata).toMatchObject({ stale: true, phase: 'awaiting_review', agent: 'test' });
    const asked = got.status?.message?.parts.find((p) => p.mediaType === INPUT_REQUIRED_MEDIA_TYPE)?.content;
    expect(asked?.$case === 'data' && asked.value).toMatchObject({ reviews: [{ name: 'issue_refund' }] });
    expect(got.history.map((m) => m.parts[0]?.content)).toEqual([{ $case: 'text', value: 'Refund A-1: 80.' }]);
    const done = await timed('A2A GetTask, completed', () => reader.getTask({ tenant: '', id: a2aDone.id }));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.metadata).toMatchObject({ stale: true, phase: 'done' });
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Nothing to refund.' });
    expect(done.history.map((m) => m.parts[0]?.content)).toEqual([
      { $case: 'text', value: 'Anything to refund?' },
      { $case: 'text', value: 'Nothing to refund.' },
    ]);
    const list = await timed('A2A ListTasks', () =>
      reader.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      }),
    );
    expect(new Map(list.tasks.map((t) => [t.id, t.status?.state]))).toEqual(
      new Map([
        [a2aWaiting.id, TaskState.TASK_STATE_INPUT_REQUIRED],
        [a2aDone.id, TaskState.TASK_STATE_COMPLETED],
      ]),
    );
    for (const task of list.tasks) expect(task.metadata).toMatchObject({ stale: true });
    const filtered = await timed('A2A ListTasks, input required', () =>
      reader.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_INPUT_REQUIRED,
        pageToken: '',
        statusTimestampAfter: undefined,
      }),
    );
    expect(filtered.tasks.map((t) => t.id)).toEqual([a2aWaiting.id]);
    // Only the run keeps its push targets: none are shown, in time.
    const pushConfigs = await timed('A2A ListTaskPushNotificationConfig', () =>
      reader.listTaskPushNotificationConfig({ tenant: '', taskId: a2aDone.id, pageSize: 0, pageToken: '' }),
    );
    expect(pushConfigs.configs).toEqual([]);

    // MCP, through the SDK Client: the { runId } call, and tasks/list.
    const after = await mcpClient();
    const waitingResult = await timed('MCP { runId } call, waiting', () =>
      callTool(after, { runId: mcpWaiting.runId }),
    );
    expect(waitingResult.structuredContent).toMatchObject({
      runId: mcpWaiting.runId,
      status: 'input_required',
      reviews: [{ name: 'issue_refund' }],
      stale: true,
    });
    const doneResult = await timed('MCP { runId } call, completed', () => callTool(after, { runId: mcpDone.runId }));
    expect(doneResult.structuredContent).toMatchObject({
      status: 'completed',
      answer: 'All done over MCP.',
      stale: true,
    });
    const tasks = await timed('MCP tasks/list', () => after.experimental.tasks.listTasks());
    const byId = new Map(tasks.tasks.map((t) => [t.taskId, t.status]));
    expect(byId.get(mcpWaiting.runId)).toBe('input_required');
    expect(byId.get(mcpDone.runId)).toBe('completed');
    await after.close();

    // HTTP: the run's state, and the inbox.
    const read = await timed('HTTP GET /runs/:id, waiting', async () =>
      (await fetch(`${http.url}/runs/${httpWaiting}`)).json(),
    );
    expect(read).toMatchObject({ status: 'RUNNING', state: { phase: 'awaiting_review', stale: true } });
    const readDone = await timed('HTTP GET /runs/:id, completed', async () =>
      (await fetch(`${http.url}/runs/${typed.workflowId}`)).json(),
    );
    expect(readDone).toMatchObject({
      status: 'COMPLETED',
      state: { phase: 'done', answer: 'Typed answer.', stale: true },
    });
    const inbox = await timed(
      'HTTP GET /inbox',
      async () => (await (await fetch(`${http.url}/inbox`)).json()) as InboxPage,
    );
    const items = new Map(inbox.items.map((i) => [i.runId, i]));
    for (const id of [a2aWaiting.id, mcpWaiting.runId, httpWaiting])
      expect(items.get(id), id).toMatchObject({ phase: 'awaiting_review', stale: true, waiting: [{ kind: 'review' }] });

    // A finished run's events: whole, from its result in history (test/closed-run-events.test.ts).
    const events = await timed('HTTP GET /runs/:id/events, completed', async () => {
      const response = await fetch(`${http.url}/runs/${typed.workflowId}/events`);
      return { status: response.status, body: await response.text() };
    });
    expect(events.status).toBe(200);
    expect(events.body).toContain('"answer":"Typed answer."');

    // The typed client.
    const state: RunState = await timed('typed client state(), waiting', () => client.run(httpWaiting).state({}));
    expect(state).toMatchObject({ phase: 'awaiting_review', agent: 'test', stale: true });
    expect(state.reviews[0]).toMatchObject({ name: 'issue_refund', args: { orderId: 'H-1', amount: 80 } });
    const typedDone = await timed('typed client state(), completed', () => typed.state({}));
    expect(typedDone).toMatchObject({ phase: 'done', answer: 'Typed answer.', stale: true });
    const transcript = await timed('typed client transcript({}, {}), completed', () => typed.transcript({}, {}));
    expect(transcript).toMatchObject([
      { role: 'user', content: 'Anything typed?' },
      { role: 'assistant', content: 'Typed answer.' },
    ]);

    // cairn show, as a subprocess: the command's own time (connecting included), not Node's start.
    const shown = await cairn(['show', httpWaiting]);
    timings.push([`cairn show, waiting (subprocess; ${shown.wallMs} ms with its start)`, shown.ms]);
    expect(shown.code, shown.stderr).toBe(3); // waits on a person
    expect(shown.stdout).toMatch(new RegExp(`^${httpWaiting} · agent test@[0-9a-f]{16} · phase awaiting_review`));
    expect(shown.stdout).toContain('No worker answered for this run within 2 s');
    expect(shown.stdout).toContain('Refund H-1: 80.');
    const shownDone = await cairn(['show', typed.workflowId, '--json']);
    timings.push([`cairn show --json, completed (subprocess; ${shownDone.wallMs} ms with its start)`, shownDone.ms]);
    expect(shownDone.code, shownDone.stderr).toBe(0);
    expect(JSON.parse(shownDone.stdout)).toMatchObject({
      state: { phase: 'done', answer: 'Typed answer.', stale: true },
      transcript: [
        { role: 'user', content: 'Anything typed?' },
        { role: 'assistant', content: 'Typed answer.' },
      ],
    });

    // cairn watch needs the run's worker for its events: it gives up once, within 10 s as docs/cli.md
    // says (it asked a second time, for 30 s more), naming the queue the stopped worker polled.
    const watched = await cairn(['watch', httpWaiting]);
    timings.push([`cairn watch, waiting (subprocess; ${watched.wallMs} ms with its start)`, watched.ms]);
    expect(watched.code, watched.stderr).toBe(1);
    expect(watched.stderr).toContain(`No worker answered run "${httpWaiting}" within 10 s`);
    expect(watched.stderr).toContain(`task queue "${w.taskQueue}"`);
  });
});
