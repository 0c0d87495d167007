/**
 * The worker side of `a2aAgent` against remotes that misbehave, without Temporal: one that cannot
 * be reached is `tool_unavailable`, one whose task never settles is a `timeout` naming the task to
 * follow later, one that answers something that is not A2A is `output_schema_violation`, and a
 * rejected task is a `semantic_error`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withA2AAgents } from '../activities/a2a-activity.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { a2aAgent } from '../shared/tools/a2a-agent.js';
import type { ToolContext } from '../shared/tools/define-tool.js';

let server: Server;
let base = '';
/** What the fake remote answers to SendMessage and GetTask, by its path. */
const tasks: Record<string, unknown> = {
  '/stuck': { id: 't-stuck', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
  '/garbage': 42,
  '/rejecting': {
    id: 't-no',
    contextId: 'c',
    status: {
      state: 'TASK_STATE_REJECTED',
      message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Not my job.' }] },
    },
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').replace('/.well-known/agent-card.json', '').replace(/\/$/, '');
    if (req.method === 'GET') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          name: 'fake',
          description: 'A fake remote.',
          version: '1',
          supportedInterfaces: [{ url: `${base}${path}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: {},
          defaultInputModes: [],
          defaultOutputModes: [],
          skills: [],
        }),
      );
      return;
    }
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: number; method: string };
      const task = tasks[path];
      const result = rpc.method === 'SendMessage' && typeof task === 'object' ? { task } : task;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const context = {
  toolCallId: '1.0',
  idempotencyKey: 'wf/1.0',
  attempt: 1,
  deps: undefined,
  signal: new AbortController().signal,
  confirmAttempt: async () => undefined,
} as ToolContext;

async function failureOf(url: string, timeoutMs = 1_000): Promise<ToolFailure> {
  const [tool] = withA2AAgents([a2aAgent({ url, name: 'remote', description: 'A remote agent.', timeoutMs })]);
  try {
    await tool!.execute({ message: 'Do it.' } as never, context);
  } catch (error) {
    if (ToolFailure.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolFailure');
}

describe('a2aAgent against misbehaving remotes', () => {
  it('a remote that cannot be reached is tool_unavailable', async () => {
    const failure = await failureOf('http://127.0.0.1:9/nobody');
    expect(failure.code).toBe('tool_unavailable');
  });

  it('a task that never settles is a timeout naming the task to follow', async () => {
    const failure = await failureOf(`${base}/stuck`, 800);
    expect(failure.code).toBe('timeout');
    expect(failure.message).toContain('"taskId": "t-stuck"');
  });

  it('an answer that is not A2A is output_schema_violation; a rejected task is a semantic_error', async () => {
    expect((await failureOf(`${base}/garbage`)).code).toBe('output_schema_violation');
    const rejected = await failureOf(`${base}/rejecting`);
    expect(rejected.code).toBe('semantic_error');
    expect(rejected.message).toContain('Not my job.');
  });
});
