/**
 * Issue 50's reads without a worker: how long a single run's read takes through each surface (A2A
 * GetTask over JSON-RPC, the MCP `{ runId }` call, HTTP `GET /runs/:id`, the typed client's
 * `state({})`), with the worker up and after it stopped: p50/p90 over `reads` reads of waiting and
 * finished runs each, on the embedded server, with the default 2 s read deadline. With the worker
 * stopped, the first read of a client whose queue still lists the worker's last poll waits out the
 * deadline once; it is shown on its own. `--after-window` also measures a fresh client once the
 * stopped worker's last poll is older than POLLED_WITHIN_MS (75 s more). Not part of `npm run bench`:
 * `npx tsx bench/reads-without-worker.ts [reads] [--after-window]`.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { resolveModel, type ModelClient } from '../activities/model/index.js';
import { CairnClient } from '../client/cairn-client.js';
import { POLLED_WITHIN_MS } from '../client/worker-presence.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { createCairnMcpHandler } from '../servers/mcp/cairn-mcp-handler.js';
import { toNodeListener } from '../servers/http/node-listener.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from '../test/fixtures/agents.js';

const reads = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20);
const afterWindow = process.argv.includes('--after-window');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function serve(handler: (request: Request) => Promise<Response>): Promise<{ url: string; close(): void }> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const { join } = await import('node:path');
const [server, bundle] = await Promise.all([
  startEmbeddedServer({ log: () => undefined }),
  bundleWorkflows(join(PACKAGE_ROOT, 'test/fixtures/workflows.ts')),
]);
const connect = async () => new Client({ connection: await Connection.connect({ address: server.address }) });
const temporal = await connect();
const native = await NativeConnection.connect({ address: server.address });
const taskQueue = `bench-reads-${randomUUID().slice(0, 8)}`;
const scripts: Record<string, ModelClient> = {};
const worker = await createCairnWorker({
  connection: native,
  client: temporal,
  taskQueue,
  agents: [testAgent],
  resolveModel: (spec) => resolveModel(spec, { scripts }),
  workflowBundle: { code: bundle.code },
});
const running = worker.run();
let model = '';
const script = (steps: Parameters<typeof scriptStep.text>[0][] | 'review') => {
  const name = `s-${randomUUID().slice(0, 8)}`;
  scripts[name] = new ScriptedModel(
    name,
    steps === 'review'
      ? [scriptStep.call('issue_refund', { orderId: 'B-1', amount: 80 }), scriptStep.text('Refunded.')]
      : steps.map((t) => scriptStep.text(t)),
  );
  return `scripted:${name}`;
};

/** The servers, on a client of their own (what a served process holds). */
async function surfaces(client: Client) {
  const cairn = new CairnClient({ client, taskQueue });
  const startOptions = () => ({ model });
  const http = await serve(createCairnHttpHandler({ client: cairn, agents: [testAgent], startOptions }));
  const a2a = await serve(
    createCairnA2AHandler({
      client: cairn,
      agents: [testAgent],
      startOptions,
      onError: (error) => console.error('a2a:', error),
    }),
  );
  const mcpHandler = createCairnMcpHandler({ client: cairn, agents: [testAgent], basePath: '/mcp', startOptions });
  const mcp = await serve(mcpHandler);
  const a2aClient = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }),
  ).createFromUrl(`${a2a.url}/test/`);
  const mcpClient = new McpClient({ name: 'bench', version: '1.0.0' }, { capabilities: {} });
  await mcpClient.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
  const read: Record<string, (id: string) => Promise<unknown>> = {
    'A2A GetTask': (id) => a2aClient.getTask({ tenant: '', id, historyLength: 10 } as never),
    'MCP { runId } call': (id) => mcpClient.callTool({ name: 'test', arguments: { runId: id } }),
    'HTTP GET /runs/:id': async (id) => (await fetch(`${http.url}/runs/${id}`)).json(),
    'typed state({})': (id) => cairn.run(id).state({}),
  };
  return {
    cairn,
    read,
    async close() {
      await mcpClient.close();
      await mcpHandler.close();
      for (const s of [http, a2a, mcp]) s.close();
    },
  };
}

const up = await surfaces(temporal);
const runs: string[] = [];
for (let i = 0; i < 3; i++) {
  model = script('review');
  const { run } = await up.cairn.startUntilIdle({ agent: 'test', prompt: 'Refund B-1: 80.', model });
  runs.push(run.workflowId);
  model = script(['Nothing to refund.']);
  const done = await up.cairn.startUntilIdle({ agent: 'test', prompt: 'Anything?', model });
  runs.push(done.run.workflowId);
}

async function measure(s: Awaited<ReturnType<typeof surfaces>>): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>();
  for (const [what, read] of Object.entries(s.read)) {
    const t: number[] = [];
    for (let i = 0; i < reads; i++) {
      const started = performance.now();
      await read(runs[i % runs.length]!);
      t.push(performance.now() - started);
    }
    times.set(what, t);
  }
  return times;
}

const lines: string[] = [];
const row = (label: string, times: Map<string, number[]>) => {
  lines.push(
    `${label}  (load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  for (const [what, t] of times)
    lines.push(
      `  ${what.padEnd(20)} p50 ${percentile(t, 50).toFixed(0).padStart(5)} ms  p90 ${percentile(t, 90).toFixed(0).padStart(5)} ms  max ${Math.max(
        ...t,
      )
        .toFixed(0)
        .padStart(5)} ms`,
    );
};
await measure(up); // warm
row(`worker up, ${reads} reads per surface`, await measure(up));

worker.shutdown();
await running;
const started = performance.now();
await up.read['typed state({})']!(runs[0]!);
lines.push(
  `worker stopped: the client's first read (its last poll still listed) ${(performance.now() - started).toFixed(0)} ms`,
);
row('worker stopped, same client', await measure(up));
const fresh = await surfaces(await connect());
row('worker stopped, a fresh client (its first read waits out 2 s)', await measure(fresh));
await fresh.close();
if (afterWindow) {
  await sleep(POLLED_WITHIN_MS + 5_000);
  const later = await surfaces(await connect());
  row(`worker stopped > ${POLLED_WITHIN_MS / 1000} s, a fresh client`, await measure(later));
  await later.close();
}
console.log(lines.join('\n'));
await up.close();
await native.close();
await server.close();
process.exit(0);
