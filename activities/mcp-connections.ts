/**
 * A worker's MCP connections: one client per server, opened on first use and reused by every call
 * and run; a server that crashed or dropped the connection is started again on the next use; all
 * are closed (stdio servers' processes ended) when the worker stops. Lists each server's tools
 * (bounded, for the run's history) and calls them, mapping every failure into Cairn's taxonomy:
 * an `isError` result → `semantic_error` with the server's text (or `invalid_arguments` when the
 * server refused the arguments), JSON-RPC invalid params → `invalid_arguments`, a server that will
 * not start or drops the connection → `tool_unavailable`, a timeout → `timeout`. The MCP SDK is an
 * optional peer: `loadMcpSdk()` loads it (the worker does, before it serves an agent with MCP tools).
 * Revisions: with `@modelcontextprotocol/client` (2.x, optional) installed, an HTTP server is asked
 * first in MCP 2026-07-28 (the v2 client's `server/discover` negotiation); a server that does not
 * speak it is connected as before, in 2025-11-25, by `@modelcontextprotocol/sdk`. A stdio server is
 * spoken to in 2025-11-25 (a probe would spawn its command twice). The listing says which revision
 * each server was found to speak. Worker side only.
 */
import { FEATURE_PEERS, MissingPeerError, requirePeers } from '../shared/optional-peers.js';
import type { AnyTool, ToolContext, ToolSpec } from '../shared/tools/define-tool.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json/json.js';
import { toJsonValue } from '../shared/json/json-safe.js';
import { measureJson, utf8Bytes } from '../shared/json/json-measure.js';
import type { McpListing, McpServer, McpToolInfo } from '../shared/mcp/mcp-server.js';
import { mcpTools, type McpToolRef } from '../shared/mcp/mcp-tools.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { fromError } from '../shared/failures/tool-error.js';

/** Bounds on what a listing may bring into a run's history. */
const MAX_TOOLS_PER_SERVER = 128;
const MAX_SCHEMA_BYTES = 32 * 1024;
const MAX_SCHEMA_DEPTH = 16;
const MAX_DESCRIPTION_CHARS = 2_000;
/** A server's whole listing: tools past it are left out (the run's history and Temporal's 2 MB payload limit). */
const MAX_LISTING_BYTES = 256 * 1024;
const CONNECT_TIMEOUT_MS = 20_000;

/** The parts of the MCP SDK a worker uses. */
export type McpSdk = Awaited<ReturnType<typeof importSdk>>;

async function importSdk() {
  const [client, stdio, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const { Client } = client;
  const { getDefaultEnvironment, StdioClientTransport } = stdio;
  const { StreamableHTTPClientTransport } = http;
  const { ErrorCode, McpError } = types;
  return { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport, ErrorCode, McpError };
}

/** A connected client of either revision, as this file uses it. */
interface Connection {
  /** The protocol revision the server was found to speak. */
  readonly revision: string;
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options: { timeout: number; signal: AbortSignal },
  ): Promise<CallResult>;
  listTools(
    params: { cursor?: string },
    options: { timeout: number },
  ): Promise<{ tools: Parameters<typeof boundedInfo>[0][]; nextCursor?: string | undefined }>;
  close(): Promise<void>;
}

let client2026: Promise<typeof import('@modelcontextprotocol/client') | undefined> | undefined;
/** The v2 client (MCP 2026-07-28), loaded once; undefined when it is not installed (2025-11-25 only). */
function loadMcpClient2026(): Promise<typeof import('@modelcontextprotocol/client') | undefined> {
  return (client2026 ??= requirePeers(
    'MCP tools (mcpServer) in 2026-07-28',
    FEATURE_PEERS.mcpClient2026,
    () => import('@modelcontextprotocol/client'),
  ).catch((error: unknown) => {
    if (MissingPeerError.isInstance(error)) return undefined;
    client2026 = undefined;
    throw error;
  }));
}

let sdk: Promise<McpSdk> | undefined;
/** The MCP SDK, loaded once; a `MissingPeerError` naming `@modelcontextprotocol/sdk` when it is not installed. */
export function loadMcpSdk(): Promise<McpSdk> {
  const loading = (sdk ??= requirePeers('MCP tools (mcpServer)', FEATURE_PEERS.mcp, importSdk));
  // A failed load is not kept: installing the package and retrying needs no restart of a long-lived process.
  loading.catch(() => sdk === loading && (sdk = undefined));
  return loading;
}

export class McpConnections {
  private readonly servers: ReadonlyMap<string, McpServer>;
  private readonly clients = new Map<string, Promise<Connection>>();
  private readonly listings = new Map<string, Promise<McpListing>>();
  private closed = false;

  constructor(servers: readonly McpServer[]) {
    const byName = new Map<string, McpServer>();
    for (const server of servers) {
      const seen = byName.get(server.name);
      if (seen && seen !== server && JSON.stringify(seen) !== JSON.stringify(server))
        throw new Error(
          `Two different MCP servers are named "${server.name}"; a worker connects to servers by name: rename one.`,
        );
      byName.set(server.name, server);
    }
    this.servers = byName;
  }

  get size(): number {
    return this.servers.size;
  }

  /** The server's tools as the run will record them, or why it could not be reached. Never throws. */
  async list(name: string): Promise<McpListing> {
    let listing = this.listings.get(name);
    if (!listing) {
      listing = this.fetchListing(name);
      this.listings.set(name, listing);
      // A failed listing is not kept: the next run tries again.
      void listing.then(
        (l) => l.error !== undefined && this.listings.get(name) === listing && this.listings.delete(name),
      );
    }
    return listing;
  }

  /** The Cairn tool called `name`, from the servers' listings; lists the servers that are not listed yet. */
  async tool(name: string): Promise<AnyTool | undefined> {
    for (const server of this.servers.values()) {
      const found = mcpTools(server, await this.list(server.name), this.execute).find((t) => t.name === name);
      if (found) return found;
    }
    return undefined;
  }

  async spec(name: string): Promise<ToolSpec | undefined> {
    return (await this.tool(name))?.spec;
  }

  /** Calls an MCP tool; what it returns is the tool's output, a failure it understands is a ToolFailure. */
  readonly execute = async (ref: McpToolRef, args: JsonValue, context: ToolContext): Promise<unknown> => {
    const server = this.servers.get(ref.server);
    if (!server) throw ToolFailure.unavailable(`This worker has no MCP server named ${ref.server}.`);
    let client: Connection;
    try {
      client = await this.connect(server);
    } catch (err) {
      throw ToolFailure.unavailable(`The MCP server ${server.name} could not be reached: ${fromError(err).message}`);
    }
    let result: CallResult;
    try {
      result = await client.callTool(
        { name: ref.tool, arguments: isJsonObject(args) ? args : {} },
        { timeout: server.timeoutMs, signal: context.signal },
      );
    } catch (err) {
      if (context.signal.aborted) throw err;
      throw this.failure(server, ref, err, await loadMcpSdk());
    }
    return outputOf(ref, result);
  };

  /** Closes every connection (stdio servers exit with their stdin). */
  async close(): Promise<void> {
    this.closed = true;
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((c) => c.then((client) => client.close()).catch(() => undefined)));
  }

  private failure(server: McpServer, ref: McpToolRef, err: unknown, { ErrorCode, McpError }: McpSdk): ToolFailure {
    const message = fromError(err).message;
    // The v1 SDK's McpError, or the v2 client's ProtocolError (a number) and SdkError (a string).
    const raw = (err as { code?: unknown } | null)?.code;
    const code = err instanceof McpError || typeof raw === 'number' || typeof raw === 'string' ? raw : undefined;
    if (code === ErrorCode.RequestTimeout || code === 'REQUEST_TIMEOUT')
      return new ToolFailure(
        'timeout',
        `${ref.tool} on the MCP server ${server.name} did not answer within ${server.timeoutMs} ms.`,
      );
    if (code === ErrorCode.InvalidParams)
      return ToolFailure.invalidArguments(
        `The MCP server ${server.name} refused the arguments of ${ref.tool}: ${message}`,
      );
    if (
      code !== undefined &&
      code !== ErrorCode.ConnectionClosed &&
      code !== 'CONNECTION_CLOSED' &&
      code !== 'SEND_FAILED'
    )
      return new ToolFailure('internal_error', `The MCP server ${server.name} failed ${ref.tool}: ${message}`);
    // The connection is gone (the server crashed or hung up): the next use starts it again.
    this.clients.delete(server.name);
    return ToolFailure.unavailable(
      `The MCP server ${server.name} dropped the connection during ${ref.tool}: ${message}`,
    );
  }

  private connect(server: McpServer): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error('the worker is shutting down'));
    let client = this.clients.get(server.name);
    if (!client) {
      client = open(server, () => {
        if (this.clients.get(server.name) === client) this.clients.delete(server.name);
      });
      this.clients.set(server.name, client);
      client.catch(() => this.clients.get(server.name) === client && this.clients.delete(server.name));
    }
    return client;
  }

  private async fetchListing(name: string): Promise<McpListing> {
    const server = this.servers.get(name);
    if (!server) return { server: name, error: `This worker has no MCP server named ${name}.` };
    try {
      const client = await this.connect(server);
      const tools: McpToolInfo[] = [];
      let bytes = 0;
      let full = false;
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: CONNECT_TIMEOUT_MS });
        for (const tool of page.tools) {
          const info = boundedInfo(tool);
          bytes += utf8Bytes(JSON.stringify(info));
          full = full || tools.length >= MAX_TOOLS_PER_SERVER || bytes > MAX_LISTING_BYTES;
          if (!full) tools.push(info);
        }
        cursor = full ? undefined : page.nextCursor;
      } while (cursor);
      return { server: name, tools, revision: client.revision };
    } catch (err) {
      return {
        server: name,
        error: `The MCP server ${name} could not be listed: ${fromError(err).message}`.slice(0, 1_000),
      };
    }
  }
}

async function open(server: McpServer, onClose: () => void): Promise<Connection> {
  if (server.url) {
    const modern = await openStateless(server, onClose);
    if (modern) return modern;
  }
  const { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } = await loadMcpSdk();
  const client = new Client({ name: 'cairn', version: '1' });
  const transport = server.url
    ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } })
    : new StdioClientTransport({
        command: server.command!,
        args: [...(server.args ?? [])],
        env: { ...getDefaultEnvironment(), ...server.env },
        ...(server.cwd && { cwd: server.cwd }),
        stderr: 'ignore',
      });
  client.onclose = onClose;
  // The v1 client tells the transport the revision it settled on at initialize (stdio has no hook: one is added).
  let revision = LEGACY_REVISION;
  const told = (transport as { setProtocolVersion?: (version: string) => void }).setProtocolVersion?.bind(transport);
  (transport as { setProtocolVersion?: (version: string) => void }).setProtocolVersion = (version) => {
    revision = version;
    told?.(version);
  };
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return {
    revision,
    callTool: (params, options) => client.callTool(params, undefined, options) as Promise<CallResult>,
    listTools: (params, options) => client.listTools(params, options),
    close: () => client.close(),
  };
}

const LEGACY_REVISION = '2025-11-25';

/**
 * An HTTP server asked in MCP 2026-07-28 by the v2 client (`server/discover`); undefined when the
 * client is not installed or the server speaks only an earlier revision (then it is connected in
 * 2025-11-25 by the v1 SDK, as before).
 */
async function openStateless(server: McpServer, onClose: () => void): Promise<Connection | undefined> {
  const v2 = await loadMcpClient2026();
  if (!v2) return undefined;
  const client = new v2.Client(
    { name: 'cairn', version: '1' },
    { versionNegotiation: { mode: 'auto', probe: { timeoutMs: CONNECT_TIMEOUT_MS } } },
  );
  try {
    await client.connect(
      new v2.StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: { ...server.headers } } }),
      { timeout: CONNECT_TIMEOUT_MS },
    );
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  if (client.getProtocolEra() !== 'modern') {
    await client.close().catch(() => undefined);
    return undefined;
  }
  client.onclose = onClose;
  return {
    revision: client.getNegotiatedProtocolVersion() ?? '2026-07-28',
    callTool: (params, options) => client.callTool(params, options) as Promise<CallResult>,
    listTools: (params, options) => client.listTools(params, options),
    close: () => client.close(),
  };
}

/** A listed tool with a bounded description and schema: an oversize or too-deep schema takes any object. */
function boundedInfo(tool: {
  name: string;
  description?: string;
  inputSchema: unknown;
  annotations?: Record<string, unknown>;
}): McpToolInfo {
  const json = toJsonValue(tool.inputSchema);
  const schema = json.ok && isJsonObject(json.value) ? json.value : {};
  const fits =
    measureJson(schema, { maxDepth: MAX_SCHEMA_DEPTH }).stopped === undefined &&
    utf8Bytes(JSON.stringify(schema)) <= MAX_SCHEMA_BYTES;
  const a = tool.annotations ?? {};
  const annotations = Object.fromEntries(
    ['readOnlyHint', 'destructiveHint', 'idempotentHint']
      .filter((k) => typeof a[k] === 'boolean')
      .map((k) => [k, a[k] as boolean]),
  );
  return {
    name: String(tool.name).slice(0, 128),
    ...(typeof tool.description === 'string' && { description: tool.description.slice(0, MAX_DESCRIPTION_CHARS) }),
    inputSchema: fits ? schema : { type: 'object' },
    ...(Object.keys(annotations).length > 0 && { annotations }),
  };
}

type CallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown };

/** What the model sees of a result: structured content, else the text, else the content items (binary left out). */
function outputOf(ref: McpToolRef, result: CallResult): unknown {
  const items = (Array.isArray(result.content) ? result.content : []).map(contentItem);
  if (result.isError === true) {
    const text =
      items
        .map((i) => (typeof i.text === 'string' ? i.text : ''))
        .join('\n')
        .trim() || 'no details given';
    if (/-32602|invalid arguments|input validation/i.test(text))
      throw ToolFailure.invalidArguments(`${ref.tool} refused its arguments: ${text}`);
    throw new ToolFailure('semantic_error', `${ref.tool} reported an error: ${text}`);
  }
  if (isJsonObject(result.structuredContent as JsonValue)) return result.structuredContent;
  if (items.length === 1 && items[0]!.type === 'text') return items[0]!.text;
  return { content: items };
}

function contentItem(item: unknown): JsonObject {
  const i = (isJsonObject(item as JsonValue) ? item : {}) as Record<string, unknown>;
  switch (i.type) {
    case 'text':
      return { type: 'text', text: String(i.text ?? '') };
    case 'image':
    case 'audio':
      return {
        type: String(i.type),
        mimeType: String(i.mimeType ?? ''),
        note: `${String(i.data ?? '').length} characters of base64, not shown`,
      };
    case 'resource': {
      const r = (i.resource ?? {}) as Record<string, unknown>;
      return { type: 'resource', uri: String(r.uri ?? ''), ...(typeof r.text === 'string' && { text: r.text }) };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: String(i.uri ?? ''), name: String(i.name ?? '') };
    default:
      return { type: String(i.type ?? 'unknown') };
  }
}
