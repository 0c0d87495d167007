/**
 * MCP 2026-07-28 (stateless) on the same endpoint as 2025-11-25: the real v2 `Client` of
 * `@modelcontextprotocol/client` negotiates the new revision with `createCairnMcpHandler` (the v1
 * `Client` of `@modelcontextprotocol/sdk` still initializes a session there), lists the agents as
 * tools, and calls one to its answer; the run's question and its held call come back as
 * `input_required` results the client's elicitation handler answers by retrying; without one the
 * result says what is asked and a call with the runId answers; bad input gets protocol error codes;
 * another tenant's run is unknown, also through a replayed requestState; and two handlers in two
 * HTTP servers with nothing shared but Temporal answer one client whose requests alternate between them;
 * `cairn mcp` over stdio speaks 2026-07-28 to a v2 client too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnMcpHandler, type CairnMcpHandler } from '../servers/mcp/cairn-mcp-handler.js';
import type { Authorize } from '../servers/http/authorize.js';
import type { CairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { waitFor } from './support/runs.js';
import { connectClient, serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let model = '';
const cairns: CairnClient[] = [];
const opened: { served: Served; handler?: CairnMcpHandler }[] = [];
const processes: ChildProcess[] = [];
const REVISION = '2026-07-28';

async function server(
  authorize?: Authorize,
  requestStateKey?: string,
): Promise<{ handler: CairnMcpHandler; url: string }> {
  const cairn = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  cairns.push(cairn);
  const handler = createCairnMcpHandler({
    client: cairn,
    agents: [testAgent],
    basePath: '/mcp',
    maxBodyBytes: 64 * 1024,
    ...(authorize && { authorize }),
    ...(requestStateKey && { requestStateKey }),
    startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '2m' } }),
    onError: () => undefined,
  });
  const served = await serve(handler as unknown as CairnHttpHandler);
  opened.push({ served, handler });
  return { handler, url: `${served.url}/mcp` };
}

/** The MCP endpoint in a process of its own (test/fixtures/mcp-server-process.ts), serving this test's runs; its URL. */
async function serverProcess(): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PACKAGE_ROOT, 'test/fixtures/mcp-server-process.ts')],
    {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: serverAddress(), TASK_QUEUE: w.taskQueue, MODEL: model },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  processes.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /serving (\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`the MCP server process exited (${code})`)));
  });
}

/** One address in front of `backends`, each request to the next in turn; counts what each got. */
async function roundRobin(backends: readonly string[]): Promise<{ url: string; served: number[] }> {
  const served = backends.map(() => 0);
  let next = 0;
  const proxy = async (request: Request): Promise<Response> => {
    const at = next++ % backends.length;
    served[at]!++;
    const url = new URL(request.url);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    headers.delete('host');
    const answer = await fetch(`${backends[at]}${url.pathname.replace(/^\/mcp/, '')}${url.search}`, {
      method: request.method,
      headers,
      ...(body && { body }),
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
  const front = await serve(proxy as unknown as CairnHttpHandler);
  opened.push({ served: front });
  return { url: `${front.url}/mcp`, served };
}

async function v2Client(
  url: string,
  elicit?: (request: ElicitRequest) => Promise<ElicitResult>,
  headers?: Record<string, string>,
  mode: 'auto' | { pin: string } = { pin: REVISION },
): Promise<Client> {
  const client = new Client(
    { name: 'v2-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode } },
  );
  if (elicit) client.setRequestHandler('elicitation/create', elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), headers && { requestInit: { headers } }));
  return client;
}

/** Answers the delivery-window question with `morning` and accepts the held refund; records what was asked. */
function person(asked: string[]) {
  return async (request: ElicitRequest): Promise<ElicitResult> => {
    const params = request.params as { message: string; requestedSchema: { properties: Record<string, unknown> } };
    asked.push(params.message);
    return {
      action: 'accept',
      content: 'window' in params.requestedSchema.properties ? { window: 'morning' } : { decision: 'accept' },
    };
  };
}

type Structured = { runId: string; status: string; reviews?: { toolCallId: string; argsHash: string }[] };

beforeAll(async () => {
  w = await startTestWorker();
});
afterAll(async () => {
  for (const child of processes) child.kill('SIGKILL');
  for (const { served, handler } of opened) {
    await handler?.close();
    await served.close();
  }
  for (const c of cairns) await c.close();
  await w?.stop();
});

const refundScript = () =>
  w.script([
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }), // no window: a question
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
    scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }), // over 50: a review
    scriptStep.text('Refunded 80 on A-1001; redelivery in the morning.'),
  ]);

describe('MCP 2026-07-28 beside 2025-11-25 on one endpoint', () => {
  it('a negotiating v2 client gets 2026-07-28 and lists the agents as tools; a v1 client still gets a 2025-11-25 session', async () => {
    const { url } = await server();
    const client = await v2Client(url, undefined, undefined, 'auto');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['test']);
    expect(tools[0]!.inputSchema.properties).toHaveProperty('runId');
    await client.close();

    const v1 = new V1Client({ name: 'v1-test', version: '1.0.0' });
    const transport = new V1Transport(new URL(url));
    await v1.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    expect(v1.getServerCapabilities()?.tasks).toBeDefined();
    expect((await v1.listTools()).tools.map((t) => t.name)).toEqual(['test']);
    await v1.close();
  });

  it('the question and the review are input_required results the client answers by retrying; the call returns the answer; the once tool runs once', async () => {
    ({ model } = refundScript());
    const refundsBefore = calls.issue_refund ?? 0;
    const { url } = await server();
    const asked: string[] = [];
    const client = await v2Client(url, person(asked));
    const result = await client.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      answer: 'Refunded 80 on A-1001; redelivery in the morning.',
    });
    expect(asked).toEqual([
      'Which delivery window suits you: morning or afternoon?',
      expect.stringMatching(/issue_refund/),
    ]);
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    await client.close();
  });

  it('a client without elicitation gets what is asked as the result and answers by run id; a person who declines gets the same', async () => {
    ({ model } = refundScript());
    const { url } = await server();
    const client = await v2Client(url);
    const waiting = (
      await client.callTool({
        name: 'test',
        arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
      })
    ).structuredContent as Structured;
    expect(waiting).toMatchObject({ status: 'input_required', question: { missingFields: ['window'] } });
    const reviewing = (
      await client.callTool({
        name: 'test',
        arguments: { runId: waiting.runId, answer: { window: 'morning' } },
      })
    ).structuredContent as Structured;
    expect(reviewing.status).toBe('input_required');
    const held = reviewing.reviews![0]!;
    // The review asked of a person who declines: the result says what is asked; the run keeps waiting.
    let declined = 0;
    const declining = await v2Client(url, async () => (declined++, { action: 'decline' }));
    const still = (await declining.callTool({ name: 'test', arguments: { runId: waiting.runId } }))
      .structuredContent as Structured;
    expect(declined).toBe(1);
    expect(still).toMatchObject({ status: 'input_required', reviews: [{ toolCallId: held.toolCallId }] });
    const done = await client.callTool({
      name: 'test',
      arguments: {
        runId: waiting.runId,
        decisions: [{ toolCallId: held.toolCallId, argsHash: held.argsHash, decision: 'accept' }],
      },
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed', runId: waiting.runId });
    await client.close();
    await declining.close();
  });

  it('a call the client abandons cancels the run it started, gracefully', async () => {
    ({ model } = w.script([scriptStep.call('takes_a_moment', {}), scriptStep.text('Stopped as asked.')]));
    const { url } = await server();
    const cairn = cairns.at(-1)!;
    const client = await v2Client(url, person([]));
    const abort = new AbortController();
    const call = client.callTool({ name: 'test', arguments: { prompt: 'Take a moment.' } }, { signal: abort.signal });
    // The run the call started: the newest MCP run of this queue that is still working.
    const workflowId = await waitFor(async () => {
      for await (const info of cairn.temporal.workflow.list({
        query: `TaskQueue = '${w.taskQueue}' AND ExecutionStatus = 'Running'`,
      }))
        if (info.workflowId.startsWith('cairn-mcp-test-')) return info.workflowId;
      return undefined;
    }, 'the call started its run');
    abort.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    let state = await cairn.run(workflowId).state();
    for await (const next of cairn.run(workflowId).states({ intervalMs: 100 })) state = next;
    expect(state).toMatchObject({ phase: 'done', finalizing: 'cancelled over MCP', answer: 'Stopped as asked.' });
    await client.close();
  });

  it('bad input gets protocol error codes, and refusals are the same as in 2025-11-25', async () => {
    const { url } = await server();
    const client = await v2Client(url);
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'no error',
        (e: { code?: number }) => e.code,
      );
    expect(await code(client.callTool({ name: 'nope', arguments: {} }))).toBe(-32602);
    // Arguments that fail the input schema are a tool error in this revision, naming the field.
    const badDecision = await client.callTool({
      name: 'test',
      arguments: { runId: 'r', decisions: [{ decision: 'maybe' }] },
    });
    expect(badDecision.isError).toBe(true);
    expect(JSON.stringify(badDecision.content)).toMatch(/decision/);
    const unknown = await client.callTool({ name: 'test', arguments: { runId: 'cairn-mcp-test-nope', answer: 'x' } });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toMatch(/unknown_run/);
    const both = await client.callTool({ name: 'test', arguments: { prompt: 'x', runId: 'y' } });
    expect(JSON.stringify(both.content)).toMatch(/invalid_input/);
    await client.close();

    // On the wire: an envelope naming a revision the endpoint does not serve, an altered requestState.
    const post = (body: unknown, version = REVISION) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': version,
          'mcp-method': (body as { method: string }).method,
          ...((body as { method: string }).method === 'tools/call' && { 'mcp-name': 'test' }),
        },
        body: JSON.stringify(body),
      });
    const meta = (version = REVISION) => ({
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const unsupported = (await (
      await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('2099-01-01') } }, '2099-01-01')
    ).json()) as { error: { code: number } };
    expect(unsupported.error.code).toBe(-32022);
    const forged = (await (
      await post({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'test', arguments: {}, requestState: '{"runId":1}', inputResponses: {}, _meta: meta() },
      })
    ).json()) as { error: { code: number } };
    expect(forged.error.code).toBe(-32602);
  });

  it('with requestStateKey the round state is signed: the flow completes across two servers of one key; a state the server did not sign is -32602', async () => {
    ({ model } = refundScript());
    const key = 'k'.repeat(32);
    const front = await roundRobin([(await server(undefined, key)).url, (await server(undefined, key)).url]);
    const asked: string[] = [];
    const client = await v2Client(front.url, person(asked));
    const done = await client.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed' });
    expect(asked).toHaveLength(2);
    await client.close();

    const { url } = await server(undefined, key);
    const unsigned = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': 'tools/call',
        'mcp-name': 'test',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'test',
          arguments: {},
          requestState: JSON.stringify({ runId: 'cairn-mcp-test-x', ask: { question: 'q' }, started: true, rounds: 1 }),
          inputResponses: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(((await unsigned.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/requestState/),
    });
  });

  it("two tenants: another tenant's run is unknown_run, asked by runId or through its replayed requestState", async () => {
    const { url } = await server((request) => ({ tenant: request.headers.get('x-tenant') ?? 'nobody' }));
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'T-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'T-1', window: 'morning' }),
      scriptStep.text('Morning for acme.'),
    ]));
    const acme = await v2Client(url, undefined, { 'x-tenant': 'acme' });
    const waiting = (await acme.callTool({ name: 'test', arguments: { prompt: 'Redeliver T-1.' } }))
      .structuredContent as Structured;
    expect(waiting.status).toBe('input_required');
    const globex = await v2Client(url, undefined, { 'x-tenant': 'globex' });
    const other = await globex.callTool({ name: 'test', arguments: { runId: waiting.runId, answer: 'afternoon' } });
    expect(JSON.stringify(other.content)).toMatch(/unknown_run/);
    // The round state acme's client would echo, sent by globex: refused as a run that never was.
    const replay = (tenant: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': REVISION,
          'mcp-method': 'tools/call',
          'mcp-name': 'test',
          'x-tenant': tenant,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: {
            name: 'test',
            arguments: { prompt: 'Redeliver T-1.' },
            requestState: JSON.stringify({ runId: waiting.runId, ask: { question: 'q' }, started: true, rounds: 1 }),
            inputResponses: { person: { action: 'accept', content: { window: 'afternoon' } } },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': REVISION,
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
    expect(JSON.stringify(await (await replay('globex')).json())).toMatch(/unknown_run/);
    const done = await acme.callTool({
      name: 'test',
      arguments: { runId: waiting.runId, answer: { window: 'morning' } },
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed', answer: 'Morning for acme.' });
    await acme.close();
    await globex.close();
  });

  it('two server processes behind one address, requests alternating: the question and the review are answered across them', async () => {
    ({ model } = refundScript());
    const refundsBefore = calls.issue_refund ?? 0;
    const [a, b] = await Promise.all([serverProcess(), serverProcess()]);
    const front = await roundRobin([a, b]);
    const asked: string[] = [];
    const client = await v2Client(front.url, person(asked));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['test']);
    const result = await client.callTool({
      name: 'test',
      arguments: { prompt: 'A-1001 is late: redeliver it and refund 80.' },
    });
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      answer: 'Refunded 80 on A-1001; redelivery in the morning.',
    });
    expect(asked).toHaveLength(2);
    expect(calls.issue_refund! - refundsBefore).toBe(1);
    // discover, list, and the call in three rounds: each server answered some, none all.
    expect(front.served.reduce((x, y) => x + y)).toBeGreaterThanOrEqual(5);
    expect(Math.min(...front.served)).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  it('`cairn mcp` over stdio: a negotiating v2 client gets 2026-07-28 and answers, through a retry, the question of a run started over HTTP', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'S-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'S-1', window: 'morning' }),
      scriptStep.text('Morning, over stdio.'),
    ]));
    const http = await v2Client((await server()).url);
    const waiting = (await http.callTool({ name: 'test', arguments: { prompt: 'Redeliver S-1.' } }))
      .structuredContent as Structured;
    expect(waiting.status).toBe('input_required');
    await http.close();

    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_')),
    ) as Record<string, string>;
    const asked: string[] = [];
    const client = new Client(
      { name: 'v2-stdio', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', person(asked));
    await client.connect(
      new StdioClientTransport({
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
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['helper', 'test']);
      // Reading the run asks its person (the question is still pending): the retry carries the answer.
      const done = await client.callTool({ name: 'test', arguments: { runId: waiting.runId } });
      expect(asked).toEqual(['Which delivery window suits you: morning or afternoon?']);
      expect(done.structuredContent).toMatchObject({ status: 'completed', answer: 'Morning, over stdio.' });
    } finally {
      await client.close();
    }
  });
});
