/**
 * The worker's MCP connections against real servers: server-everything over streamable HTTP
 * (a process of its own on a free port), and the fixture server over stdio: listing, calls,
 * failure mapping, and no process left behind once closed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServer } from '../shared/mcp/mcp-server.js';
import { McpConnections } from './mcp-connections.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import type { ToolContext } from '../shared/tools/define-tool.js';
import { freePort } from '../test/support/ports.js';

const context = (): ToolContext => ({
  toolCallId: '1.1',
  idempotencyKey: 'k',
  attempt: 1,
  deps: undefined,
  signal: new AbortController().signal,
  confirmAttempt: async () => {},
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('MCP over streamable HTTP (server-everything)', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    child = spawn(
      process.execPath,
      ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'],
      { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => String(chunk).includes(String(port)) && resolve());
      child.once('exit', (code) => reject(new Error(`server-everything exited (${code})`)));
    });
  }, 30_000);
  afterAll(() => void child?.kill());

  it('lists the tools with their annotations and calls one; a server that is not there is unavailable', async () => {
    const everything = mcpServer({ name: 'everything', url });
    const connections = new McpConnections([everything, mcpServer({ name: 'gone', url: 'http://127.0.0.1:1/mcp' })]);
    try {
      const listing = await connections.list('everything');
      expect(listing.tools?.find((t) => t.name === 'get-sum')).toMatchObject({
        annotations: { readOnlyHint: true },
        inputSchema: { required: ['a', 'b'] },
      });
      expect((await connections.tool('everything_get_sum'))?.sideEffects).toBe('none');
      expect(await connections.execute({ server: 'everything', tool: 'get-sum' }, { a: 2, b: 3 }, context())).toBe(
        'The sum of 2 and 3 is 5.',
      );
      expect(
        await connections.execute(
          { server: 'everything', tool: 'get-structured-content' },
          { location: 'Chicago' },
          context(),
        ),
      ).toMatchObject({ temperature: expect.any(Number) });
      expect(await connections.list('gone')).toMatchObject({
        server: 'gone',
        error: expect.stringMatching(/could not be listed/),
      });
      const failure = await connections.execute({ server: 'gone', tool: 'x' }, {}, context()).catch((e: unknown) => e);
      expect(ToolFailure.isInstance(failure) && failure.code).toBe('tool_unavailable');
    } finally {
      await connections.close();
    }
  });
});

describe('MCP over stdio (the fixture server)', () => {
  it('reuses one process, maps failures, restarts a crashed server, and leaves no process once closed', async () => {
    const connections = new McpConnections([
      mcpServer({
        name: 'fixture',
        command: process.execPath,
        args: ['test/fixtures/mcp-fixture-server.mjs'],
        timeoutMs: 500,
      }),
    ]);
    const count = () =>
      connections.execute({ server: 'fixture', tool: 'count' }, {}, context()) as Promise<{
        pid: number;
        calls: number;
      }>;
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (ToolFailure.isInstance(e) ? e.code : String(e)),
      );
    const first = await count();
    expect(await count()).toEqual({ pid: first.pid, calls: 2 });
    expect(await code(connections.execute({ server: 'fixture', tool: 'refuse' }, {}, context()))).toBe(
      'semantic_error',
    );
    expect(await code(connections.execute({ server: 'fixture', tool: 'strict' }, { amount: -1 }, context()))).toBe(
      'invalid_arguments',
    );
    expect(await code(connections.execute({ server: 'fixture', tool: 'hang' }, {}, context()))).toBe('timeout');
    expect(await code(connections.execute({ server: 'fixture', tool: 'crash' }, {}, context()))).toBe(
      'tool_unavailable',
    );
    const restarted = await count();
    expect(restarted.pid).not.toBe(first.pid);
    expect(alive(first.pid)).toBe(false);
    await connections.close();
    await expect.poll(() => alive(restarted.pid), { timeout: 5_000 }).toBe(false);
    expect(await code(count())).toBe('tool_unavailable'); // closed for good: the worker is stopping
  });
});
