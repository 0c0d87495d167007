/**
 * Many tenants on one handler: `authorize` says who asks (`{ tenant, user }`); each tenant sees
 * only its own runs. Another tenant's run is a 404 word for word what a run that never was gets,
 * on every endpoint (REST, SSE, AG-UI through the real `@ag-ui/client` HttpAgent, chat, resume,
 * inbox); two tenants' "support-1" are two runs; the runs record their owner (memo, search
 * attributes, state); the typed client's `forTenant` view reaches only the tenant's runs; the A2A
 * and MCP servers, from the same `authorize`, reach only the tenant's runs too.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { BACKGROUND_PRIORITY, CairnClient, UnknownRunError } from '../client/cairn-client.js';
import { TenantRunsLimitError } from '../client/tenant-runs-limit.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { createCairnMcpHandler } from '../servers/mcp/cairn-mcp-handler.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpError } from '../servers/http/http-error.js';
import { scriptStep } from '../testing/script-steps.js';
import { CairnTenant, CairnUser } from '../workflows/contract/search-attributes.js';
import { stateQuery } from '../workflows/contract/index.js';
import { testAgent } from './fixtures/agents.js';
import { serve, type Served } from './support/http.js';
import { awaiting, waitFor } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let served: Served;
let client: CairnClient;
let model = '';

beforeAll(async () => {
  w = await startTestWorker();
  client = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
  served = await serve(
    createCairnHttpHandler({
      client,
      agents: [testAgent],
      // Who asks, from headers a gateway in front would set; no tenant header: refused.
      authorize: (request) => {
        const tenant = request.headers.get('x-tenant');
        if (!tenant) throw new HttpError(401, 'unauthorized', 'Say who you are.');
        return { tenant, user: request.headers.get('x-user') ?? 'someone' };
      },
      startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
    }),
  );
});
afterAll(async () => {
  await served?.close();
  await w?.stop();
});

const as = (tenant: string, extra: Record<string, string> = {}) => ({
  'x-tenant': tenant,
  'x-user': `${tenant}-user`,
  'content-type': 'application/json',
  ...extra,
});

async function startAs(tenant: string, threadId: string, prompt: string): Promise<string> {
  ({ model } = w.script([
    scriptStep.call('issue_refund', { orderId: 'A-2', amount: 80 }),
    scriptStep.text('Refunded.'),
  ]));
  const response = await fetch(`${served.url}/runs`, {
    method: 'POST',
    headers: as(tenant),
    body: JSON.stringify({ agent: 'test', prompt, threadId }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

/** What a run that never was gets: the same status and body, given the id asked for. */
function neverWas(id: string) {
  return { error: { code: 'unknown_run', message: `No run with id "${id}".` } };
}

describe('tenants over HTTP', () => {
  it("each tenant sees only its runs: another tenant's run is a 404 that leaks nothing, on every endpoint", async () => {
    const thread = `support-${randomUUID().slice(0, 8)}`;
    const a = await startAs('acme', thread, 'Refund A-2 for acme.');
    const b = await startAs('globex', thread, 'Refund A-2 for globex.');
    // Two tenants' thread of the same name: two runs.
    expect(a).not.toBe(b);
    const [stateA, stateB] = await Promise.all([
      awaiting(w.client.workflow.getHandle(a), 'awaiting_review'),
      awaiting(w.client.workflow.getHandle(b), 'awaiting_review'),
    ]);
    // The owner, in the run's state, memo and search attributes.
    expect([stateA.tenant, stateA.user, stateB.tenant]).toEqual(['acme', 'acme-user', 'globex']);
    const described = await w.client.workflow.getHandle(a).describe();
    expect(described.memo).toMatchObject({ cairnTenant: 'acme', cairnUser: 'acme-user' });
    expect([described.typedSearchAttributes.get(CairnTenant), described.typedSearchAttributes.get(CairnUser)]).toEqual([
      'acme',
      'acme-user',
    ]);
    // The tenant is the run's fairness key; a run a person started over HTTP goes ahead of background runs.
    expect(described.raw.workflowExecutionInfo?.priority).toMatchObject({
      fairnessKey: 'acme',
      fairnessWeight: 1,
      priorityKey: 2,
    });
    const held = stateA.reviews[0]!;

    // A run that never was, for comparison: its status and body are what globex gets for acme's run.
    const ghost = `cairn-thread-acme:${randomUUID()}`;
    const ghostRead = await fetch(`${served.url}/runs/${encodeURIComponent(ghost)}`, { headers: as('globex') });
    expect(ghostRead.status).toBe(404);
    expect(await ghostRead.json()).toEqual(neverWas(ghost));

    const path = `${served.url}/runs/${encodeURIComponent(a)}`;
    const attempts: [string, RequestInit][] = [
      [path, { headers: as('globex') }],
      [`${path}/events`, { headers: as('globex') }],
      [`${path}/events`, { headers: as('globex', { 'last-event-id': '0' }) }],
      [`${path}/answer`, { method: 'POST', headers: as('globex'), body: JSON.stringify({ answer: 'morning' }) }],
      [
        `${path}/reviews/${encodeURIComponent(held.toolCallId)}`,
        {
          method: 'POST',
          headers: as('globex'),
          body: JSON.stringify({ argsHash: held.argsHash, decision: { type: 'accept' } }),
        },
      ],
      [`${path}/messages`, { method: 'POST', headers: as('globex'), body: JSON.stringify({ text: 'hello' }) }],
      [
        `${path}/budget`,
        { method: 'POST', headers: as('globex'), body: JSON.stringify({ decision: { type: 'stop' } }) },
      ],
      [`${path}/cancel`, { method: 'POST', headers: as('globex'), body: JSON.stringify({}) }],
    ];
    for (const [url, init] of attempts) {
      const response = await fetch(url, init);
      expect(response.status, `${init.method ?? 'GET'} ${url}`).toBe(404);
      expect(await response.json()).toEqual(neverWas(a));
    }
    // The owner reaches it.
    const own = await fetch(path, { headers: as('acme') });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { state: { tenant: string } }).state.tenant).toBe('acme');

    // Chat resume of acme's chat id, asked by globex: globex has no such chat (204, as for any unknown chat).
    const chatThread = `chat-${randomUUID().slice(0, 8)}`;
    const chatA = await startAs('acme', chatThread, 'Refund A-2 for acme, in chat.');
    const heldInChat = (await awaiting(w.client.workflow.getHandle(chatA), 'awaiting_review')).reviews[0]!;
    expect((await fetch(`${served.url}/chat/${chatThread}/stream`, { headers: as('globex') })).status).toBe(204);
    expect((await fetch(`${served.url}/chat/${chatThread}/stream`, { headers: as('acme') })).status).toBe(200);

    // AG-UI: globex resuming acme's interrupt on a thread id only acme has reaches nothing of acme's.
    const agent = new HttpAgent({
      url: `${served.url}/agui`,
      threadId: chatThread,
      headers: as('globex'),
      initialMessages: [],
    });
    const events: BaseEvent[] = [];
    const resumed = await agent
      .runAgent(
        {
          resume: [
            {
              interruptId: heldInChat.toolCallId,
              status: 'resolved',
              payload: { decision: { type: 'accept' }, argsHash: heldInChat.argsHash },
            },
          ],
        } as never,
        { onEvent: ({ event }) => void events.push(event) },
      )
      .then(
        () => 'ok',
        (error: Error) => error.message,
      );
    expect(JSON.stringify(events)).not.toContain('acme');
    expect(String(resumed)).not.toContain('acme');
    // acme's run still holds its call, untouched by globex's attempts.
    expect(String(resumed)).not.toContain(chatA);
    const still = await w.client.workflow.getHandle(chatA).query(stateQuery);
    expect(still.phase).toBe('awaiting_review');
    expect(still.reviews.map((r) => r.toolCallId)).toEqual([heldInChat.toolCallId]);

    // The inbox: each tenant's own runs only.
    const inboxOf = async (tenant: string) => {
      const response = await fetch(`${served.url}/inbox`, { headers: as(tenant) });
      expect(response.status).toBe(200);
      return ((await response.json()) as { items: { runId: string }[] }).items.map((i) => i.runId);
    };
    const acmeInbox = await waitFor(async () => {
      const ids = await inboxOf('acme');
      return ids.includes(a) && ids.includes(chatA) ? ids : undefined;
    }, 'acme inbox');
    expect(acmeInbox).not.toContain(b);
    const globexInbox = await waitFor(async () => {
      const ids = await inboxOf('globex');
      return ids.includes(b) ? ids : undefined;
    }, 'globex inbox');
    expect(globexInbox).not.toContain(a);
    expect(globexInbox).not.toContain(chatA);
    // No identity: refused.
    expect((await fetch(`${served.url}/inbox`)).status).toBe(401);

    // The typed client's tenant view.
    await expect(client.forTenant('globex').run(a)).rejects.toBeInstanceOf(UnknownRunError);
    expect((await client.forTenant('acme').run(a)).workflowId).toBe(a);
    await expect(client.forTenant('acme').run(`never-${randomUUID()}`)).rejects.toBeInstanceOf(UnknownRunError);

    // The owner decides; the run completes.
    const decided = await fetch(`${path}/reviews/${encodeURIComponent(held.toolCallId)}`, {
      method: 'POST',
      headers: as('acme'),
      body: JSON.stringify({ argsHash: held.argsHash, decision: { type: 'accept' } }),
    });
    expect(decided.status).toBe(200);
    for (const id of [b, chatA]) await w.client.workflow.getHandle(id).terminate('test done');
  });

  it('a tenant at its limit of runs in flight gets 429 with Retry-After; another tenant does not; a finished run frees a place', async () => {
    const limited = await serve(
      createCairnHttpHandler({
        client,
        agents: [testAgent],
        authorize: (request) => ({ tenant: request.headers.get('x-tenant')! }),
        maxRunsPerTenant: (tenant) => (tenant.startsWith('small') ? 1 : undefined),
        startOptions: () => ({ model, temporal: { workflowExecutionTimeout: '3m' } }),
      }),
    );
    try {
      const small = `small${randomUUID().slice(0, 6)}`;
      const post = (tenant: string, threadId: string) =>
        fetch(`${limited.url}/runs`, {
          method: 'POST',
          headers: as(tenant),
          body: JSON.stringify({ agent: 'test', prompt: 'Refund A-2.', threadId }),
        });
      ({ model } = w.script([
        scriptStep.call('issue_refund', { orderId: 'A-2', amount: 80 }),
        scriptStep.text('Refunded.'),
      ]));
      const first = await post(small, 'one');
      expect(first.status).toBe(201);
      const { runId } = (await first.json()) as { runId: string };
      await awaiting(w.client.workflow.getHandle(runId), 'awaiting_review');
      await waitFor(
        async () =>
          (await w.client.workflow.count(`CairnTenant = '${small}' AND ExecutionStatus = 'Running'`)).count === 1
            ? true
            : undefined,
        'the run counted',
      );
      // The same thread again: its run is found, no new one, no refusal.
      expect((await post(small, 'one')).status).toBe(201);
      const refused = await post(small, 'two');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('tenant_runs_limit');
      // Another tenant is not held back.
      const big = await post(`big${randomUUID().slice(0, 6)}`, 'two');
      expect(big.status).toBe(201);
      await w.client.workflow.getHandle(((await big.json()) as { runId: string }).runId).terminate('test done');
      // The small tenant's run ends: a place is free again.
      await w.client.workflow.getHandle(runId).terminate('test done');
      await waitFor(
        async () =>
          (await w.client.workflow.count(`CairnTenant = '${small}' AND ExecutionStatus = 'Running'`)).count === 0
            ? true
            : undefined,
        'the run no longer counted',
      );
      const again = await post(small, 'two');
      expect(again.status).toBe(201);
      await w.client.workflow.getHandle(((await again.json()) as { runId: string }).runId).terminate('test done');
    } finally {
      await limited.close();
    }
  });

  it('the typed client honours its own maxRunsPerTenant: a start past it throws TenantRunsLimitError', async () => {
    const small = `cap${randomUUID().slice(0, 6)}`;
    const capped = new CairnClient({
      client: w.client,
      taskQueue: w.taskQueue,
      maxRunsPerTenant: (t) => (t === small ? 1 : undefined),
    });
    ({ model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-3', amount: 80 }),
      scriptStep.text('Refunded.'),
    ]));
    const first = await capped.start({ agent: 'test', prompt: 'Refund A-3.', model, tenant: small });
    await awaiting(first.workflow, 'awaiting_review');
    await waitFor(
      async () =>
        (await w.client.workflow.count(`CairnTenant = '${small}' AND ExecutionStatus = 'Running'`)).count === 1
          ? true
          : undefined,
      'the run counted',
    );
    const refused = await capped
      .start({ agent: 'test', prompt: 'Another.', model, tenant: small })
      .catch((e: unknown) => e);
    expect(TenantRunsLimitError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({
      name: 'TenantRunsLimitError',
      code: 'tenant_runs_limit',
      tenant: small,
      running: 1,
      limit: 1,
      retryAfterMs: 5_000,
    });
    // Another tenant, and a client without a cap, are not held back.
    const other = await capped.start({
      agent: 'test',
      prompt: 'Refund A-3.',
      model,
      tenant: `free${randomUUID().slice(0, 6)}`,
    });
    await other.workflow.terminate('test done');
    await first.workflow.terminate('test done');
  });

  it("the A2A and MCP servers scope the same way: another tenant's run is not found in each protocol's terms, word for word as one that never was; a tenant's limit of runs holds there too", async () => {
    const tenantAuth = (request: Request) => ({ tenant: request.headers.get('x-tenant') ?? 'nobody' });
    const maxRunsPerTenant = (tenant: string) => (tenant.startsWith('small') ? 1 : undefined);
    const startOptions = () => ({ model, temporal: { workflowExecutionTimeout: '3m' } });
    const a2a = await serve(
      createCairnA2AHandler({
        client,
        agents: [testAgent],
        authorize: tenantAuth,
        maxRunsPerTenant,
        startOptions,
        onError: () => undefined,
      }),
    );
    const mcpHandler = createCairnMcpHandler({
      client,
      agents: [testAgent],
      basePath: '/mcp',
      authorize: tenantAuth,
      maxRunsPerTenant,
      startOptions,
      onError: () => undefined,
    });
    const mcp = await serve(mcpHandler);
    const a = await startAs('acme', `cross-${randomUUID().slice(0, 8)}`, 'Refund A-2 for acme.');
    await awaiting(w.client.workflow.getHandle(a), 'awaiting_review');
    const ghost = `cairn-thread-acme:${randomUUID()}`;
    try {
      const getTask = async (tenant: string, id: string) =>
        (await (
          await fetch(`${a2a.url}/test`, {
            method: 'POST',
            headers: as(tenant),
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
          })
        ).json()) as { error?: { code: number; message: string }; result?: { id: string } };
      expect((await getTask('acme', a)).result?.id).toBe(a);
      const other = await getTask('globex', a);
      expect(other.error?.code).toBe(-32001);
      expect(JSON.stringify(other).replaceAll(a, '<id>')).toBe(
        JSON.stringify(await getTask('globex', ghost)).replaceAll(ghost, '<id>'),
      );

      const callAs = async (tenant: string, runId: string | undefined) => {
        const mcpClient = new McpClient({ name: tenant, version: '1' });
        await mcpClient.connect(
          new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: as(tenant) } }),
        );
        try {
          return (await mcpClient.callTool({
            name: 'test',
            arguments: runId === undefined ? { prompt: 'Refund A-2.' } : { runId },
          })) as { isError?: boolean; content: unknown; structuredContent?: { status?: string; runId?: string } };
        } finally {
          await mcpClient.close();
        }
      };
      expect((await callAs('acme', a)).structuredContent?.status).toBe('input_required');
      const refused = await callAs('globex', a);
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content).replaceAll(a, '<id>')).toBe(
        JSON.stringify((await callAs('globex', ghost)).content).replaceAll(ghost, '<id>'),
      );

      // A tenant at its limit of runs in flight (1): no second run over A2A (429) nor over MCP.
      const small = `small${randomUUID().slice(0, 6)}`;
      ({ model } = w.script([
        scriptStep.call('issue_refund', { orderId: 'A-2', amount: 80 }),
        scriptStep.text('Refunded.'),
      ]));
      const first = await callAs(small, undefined);
      expect(first.structuredContent?.status).toBe('input_required');
      await waitFor(
        async () =>
          (await w.client.workflow.count(`CairnTenant = '${small}' AND ExecutionStatus = 'Running'`)).count === 1
            ? true
            : undefined,
        'the run counted',
      );
      const send = await fetch(`${a2a.url}/test`, {
        method: 'POST',
        headers: as(small),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'SendMessage',
          params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Refund A-3.' }] } },
        }),
      });
      expect(send.status).toBe(429);
      expect(send.headers.get('retry-after')).toBe('5');
      expect(((await send.json()) as { error: { message: string } }).error.message).toMatch(/runs in flight/);
      const second = await callAs(small, undefined);
      expect(second.isError).toBe(true);
      expect(JSON.stringify(second.content)).toMatch(/tenant_runs_limit/);
      expect((await w.client.workflow.count(`CairnTenant = '${small}'`)).count).toBe(1);
      await w.client.workflow.getHandle(first.structuredContent!.runId!).terminate('test done');
    } finally {
      await a2a.close();
      await mcpHandler.close();
      await mcp.close();
      await w.client.workflow.getHandle(a).terminate('test done');
    }
  });

  it("a child run belongs to its parent's tenant and user, with its weight and priority; the parent's memo tells the child's question", async () => {
    const { model: scripted } = w.script([
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }), // child: no window → a question
      scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
      scriptStep.text('Redelivery scheduled.'),
      scriptStep.text('Done.'),
    ]);
    // A tenant weighs 3 against the others; a run nobody waits on goes behind interactive ones.
    const weighted = new CairnClient({ client: w.client, taskQueue: w.taskQueue, tenantWeights: { acme: 3 } });
    const run = await weighted.forTenant('acme', 'ann').start({
      agent: 'test',
      prompt: 'redeliver A-1',
      model: scripted,
      priority: { priorityKey: BACKGROUND_PRIORITY },
    });
    const parent = w.client.workflow.getHandle(run.workflowId);
    await awaiting(parent, 'awaiting_clarification');
    const child = await w.client.workflow.getHandle(`${run.workflowId}/1.1`).describe();
    expect(child.memo).toMatchObject({ cairnTenant: 'acme', cairnUser: 'ann' });
    expect(child.typedSearchAttributes.get(CairnTenant)).toBe('acme');
    expect((await parent.describe()).raw.workflowExecutionInfo?.priority).toMatchObject({
      fairnessKey: 'acme',
      fairnessWeight: 3,
      priorityKey: BACKGROUND_PRIORITY,
    });
    expect(child.raw.workflowExecutionInfo?.priority).toMatchObject({
      fairnessKey: 'acme',
      fairnessWeight: 3,
      priorityKey: BACKGROUND_PRIORITY,
    });
    expect(await w.client.workflow.getHandle(`${run.workflowId}/1.1`).query(stateQuery)).toMatchObject({
      tenant: 'acme',
      user: 'ann',
    });
    const memo = (await parent.describe()).memo?.cairnWaiting as
      | { clarification: { id: string }; tenant: string }
      | undefined;
    expect(memo).toMatchObject({ tenant: 'acme', clarification: { id: '1.1/q1' } });
    await expect(client.forTenant('globex').run(`${run.workflowId}/1.1`)).rejects.toBeInstanceOf(UnknownRunError);
    await parent.terminate('test done');
  });
});
