/**
 * createCairnMcpHandler: the MCP server over streamable HTTP, as one web-standard
 * `Request → Response` function (mount it beside the HTTP handler, e.g. at `/mcp`), for clients of
 * both revisions on one endpoint. A request of MCP 2026-07-28 (its `_meta` envelope or protocol-version
 * header, as the SDK's own classifier reads it) goes to the stateless server of
 * `@modelcontextprotocol/server` (stateless-mcp-endpoint.ts), when that optional peer is installed;
 * every other request to the 2025-11-25 server of `@modelcontextprotocol/sdk`, below. Elicitation is
 * a request from the server to the client in the middle of a tool call, whose reply comes back in
 * another HTTP request: so MCP sessions are kept in memory (a bounded number, dropped when idle).
 * A session is connection state only — every run lives in Temporal — so after a restart a client
 * starts a new session and continues its run by id. A session is its initializer's: a caller of
 * another tenant gets "session not found" for it, as for one that never was. Node-only (client side).
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { checkAuthorized } from '../http/authorize.js';
import { HttpError } from '../http/http-error.js';
import { readBoundedText } from '../http/read-json-body.js';
import { createCairnMcpServer, type CairnMcpServerOptions } from './cairn-mcp-server.js';
import { FEATURE_PEERS, MissingPeerError, requirePeers } from '../../shared/optional-peers.js';
import type { StatelessMcpEndpoint } from './stateless-mcp-endpoint.js';

export interface CairnMcpHandlerOptions extends CairnMcpServerOptions {
  /** Where the handler is mounted, e.g. `/mcp`. Default: the root. */
  readonly basePath?: string;
  /** The largest request body, in bytes. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Sessions kept at once; the least recently used goes first. Default 1,000. */
  readonly maxSessions?: number;
  /** A session unused this long is closed, in ms. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Told of unexpected errors; the caller gets an internal error without details. Default: console.error. */
  readonly onError?: (error: unknown) => void;
}

export type CairnMcpHandler = ((request: Request) => Promise<Response>) & { close(): Promise<void> };

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The tenant of the caller that initialized it (`authorize`), if any. */
  readonly tenant: string | undefined;
  lastUsed: number;
}

export function createCairnMcpHandler(options: CairnMcpHandlerOptions): CairnMcpHandler {
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? 1_000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();
  const onError = options.onError ?? ((e) => console.error('cairn mcp:', e));
  let stateless: Promise<StatelessMcpEndpoint | undefined> | undefined;
  let toldMissing = false;
  const statelessEndpoint = () =>
    (stateless ??= requirePeers(
      'MCP 2026-07-28 (createCairnMcpHandler)',
      FEATURE_PEERS.mcpServer2026,
      () => import('./stateless-mcp-endpoint.js'),
    ).then(
      (m) => m.createStatelessMcpEndpoint(options, { maxBodyBytes, onError }),
      (error: unknown) => {
        if (MissingPeerError.isInstance(error)) return undefined;
        stateless = undefined;
        throw error;
      },
    ));

  const drop = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => undefined);
  };
  const sweep = async () => {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.lastUsed > idleMs) await drop(id);
    while (sessions.size >= maxSessions) await drop(sessions.keys().next().value!);
  };

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    try {
      if (url.pathname.replace(/\/$/, '') !== base) throw new HttpError(404, 'not_found', 'No such endpoint.');
      const { tenant } = await checkAuthorized(options.authorize, request, 'read', undefined);
      const id = request.headers.get('mcp-session-id');
      if (!id && request.method === 'POST') {
        const endpoint = await statelessEndpoint();
        if (endpoint && !(await endpoint.isLegacy(request))) return await endpoint.fetch(request);
        // Without the package, a 2026-07-28 client is answered as 2025-11-25 (a negotiating one falls back): say why, once.
        if (!endpoint && !toldMissing && claimsStateless(request)) {
          toldMissing = true;
          onError(new MissingPeerError('MCP 2026-07-28 (createCairnMcpHandler)', '@modelcontextprotocol/server'));
        }
      }
      if (id) {
        const session = sessions.get(id);
        if (!session || session.tenant !== tenant)
          return rpcError(404, -32001, 'Session not found: initialize a new session (runs continue by runId).');
        session.lastUsed = Date.now();
        // Most recently used last: the sweep drops from the front.
        sessions.delete(id);
        sessions.set(id, session);
        if (request.method !== 'POST') return await session.transport.handleRequest(request);
        const body = await readBody(request, maxBodyBytes);
        if (body instanceof Response) return body;
        return await session.transport.handleRequest(request, { parsedBody: body });
      }
      if (request.method !== 'POST')
        return rpcError(400, -32000, 'Bad Request: no mcp-session-id; start with initialize.');
      const body = await readBody(request, maxBodyBytes);
      if (body instanceof Response) return body;
      if (!isInitializeRequest(body))
        return rpcError(400, -32000, 'Bad Request: no mcp-session-id; start with initialize.');
      await sweep();
      const server = createCairnMcpServer(options, tenant === undefined ? {} : { tenant });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) =>
          void sessions.set(sessionId, { transport, server, tenant, lastUsed: Date.now() }),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody: body });
    } catch (error) {
      if (HttpError.isInstance(error)) return rpcError(error.status, -32600, error.message, error.headers);
      onError(error);
      return rpcError(500, -32603, 'The request failed.');
    }
  };
  return Object.assign(handler, {
    async close() {
      await (await stateless?.catch(() => undefined))?.close();
      for (const id of [...sessions.keys()]) await drop(id);
    },
  });
}

/** Whether the request names a protocol revision newer than 2025-11-25 in its header. */
function claimsStateless(request: Request): boolean {
  const version = request.headers.get('mcp-protocol-version') ?? '';
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version > '2025-11-25';
}

async function readBody(request: Request, max: number): Promise<unknown> {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
    return rpcError(415, -32000, 'Unsupported Media Type: send application/json.');
  const text = await readBoundedText(request, max);
  if (text === undefined) return rpcError(413, -32600, `The request is larger than ${max} bytes.`);
  try {
    return JSON.parse(text);
  } catch {
    return rpcError(400, -32700, 'Parse error: the body is not valid JSON.');
  }
}

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, headers });
}
