/**
 * MCP tools (`mcpServer` as a tool source) of either revision: the worker's connections ask an HTTP
 * server in 2026-07-28 first (the v2 client's negotiation) and fall back to 2025-11-25; the listing
 * says which revision each server speaks, and a tool of each is called. The servers are the SDKs'
 * own: a 2026-07-28-only `createMcpHandler` (`@modelcontextprotocol/server`) and a stateless
 * 2025-11-25 streamable HTTP transport (`@modelcontextprotocol/sdk`). Needs no Temporal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpHandler, inputRequired, McpServer as V2Server } from '@modelcontextprotocol/server';
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { McpConnections } from '../activities/mcp-connections.js';
import { mcpServer } from '../shared/mcp/mcp-server.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import type { ToolContext } from '../shared/tools/define-tool.js';
import type { CairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { serve, type Served } from './support/http.js';

const context = (): ToolContext => ({
  toolCallId: '1.1',
  idempotencyKey: 'k',
  attempt: 1,
  deps: undefined,
  signal: new AbortController().signal,
  confirmAttempt: async () => {},
});

const opened: Served[] = [];
let modernUrl = '';
let legacyUrl = '';

beforeAll(async () => {
  const modern = createMcpHandler(
    () => {
      const server = new V2Server({ name: 'modern', version: '1.0.0' });
      server.registerTool(
        'add',
        {
          description: 'Adds two numbers.',
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          annotations: { readOnlyHint: true },
        },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
      );
      server.registerTool('confirm', { inputSchema: z.object({}) }, async () =>
        inputRequired({
          inputRequests: {
            ok: inputRequired.elicit({
              message: 'Sure?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            }),
          },
        }),
      );
      return server;
    },
    { legacy: 'reject' },
  );
  const legacy = async (request: Request) => {
    const server = new V1Server({ name: 'legacy', version: '1.0.0' });
    server.registerTool('shout', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  for (const [handler, set] of [
    [modern.fetch, (url: string) => (modernUrl = url)],
    [legacy, (url: string) => (legacyUrl = url)],
  ] as const) {
    const served = await serve(handler as unknown as CairnHttpHandler);
    opened.push(served);
    set(`${served.url}/mcp`);
  }
});
afterAll(async () => {
  for (const s of opened) await s.close();
});

describe('MCP tools of either revision', () => {
  it('a 2026-07-28 server and a 2025-11-25 server: each listed with its revision, a tool of each called', async () => {
    const connections = new McpConnections([
      mcpServer({ name: 'modern', url: modernUrl }),
      mcpServer({ name: 'legacy', url: legacyUrl }),
    ]);
    try {
      const modern = await connections.list('modern');
      expect(modern).toMatchObject({
        revision: '2026-07-28',
        tools: [{ name: 'add', annotations: { readOnlyHint: true } }, { name: 'confirm' }],
      });
      const legacy = await connections.list('legacy');
      expect(legacy).toMatchObject({ revision: '2025-11-25', tools: [{ name: 'shout' }] });
      expect(await connections.execute({ server: 'modern', tool: 'add' }, { a: 2, b: 3 }, context())).toBe('5');
      expect(await connections.execute({ server: 'legacy', tool: 'shout' }, { text: 'hi' }, context())).toBe('HI');
      // Arguments the 2026-07-28 server refuses are invalid_arguments, as in 2025-11-25.
      const refused = await connections
        .execute({ server: 'modern', tool: 'add' }, { a: 'two' }, context())
        .catch((e: unknown) => e);
      expect(ToolFailure.isInstance(refused) && refused.code).toBe('invalid_arguments');
      // A tool that wants a person's input (input_required) fails the call: a worker has no person to ask.
      const wanted = await connections
        .execute({ server: 'modern', tool: 'confirm' }, {}, context())
        .catch((e: unknown) => e);
      expect(ToolFailure.isInstance(wanted) && [wanted.code, wanted.message]).toEqual([
        'internal_error',
        expect.any(String),
      ]);
    } finally {
      await connections.close();
    }
  });
});
