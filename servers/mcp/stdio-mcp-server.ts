/**
 * `cairn mcp`'s stdio server, for clients of both revisions: the opening message decides. A message
 * carrying the 2026-07-28 `_meta` envelope (a `server/discover` probe, or a first request) pins the
 * connection to the stateless server (stateless-mcp-server.ts) served by the v2 SDK's `serveStdio`;
 * anything else (`initialize`) to the 2025-11-25 server of `@modelcontextprotocol/sdk`, as before.
 * Both read and write the same stdio through a relay that holds the opening message until the server
 * it chose is connected. Without `@modelcontextprotocol/server`, every connection is 2025-11-25 (a
 * negotiating client falls back to `initialize`). Node-only (client side).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FEATURE_PEERS, MissingPeerError, requirePeers } from '../../shared/optional-peers.js';
import { createCairnMcpServer, type CairnMcpServerOptions } from './cairn-mcp-server.js';

/** The key of the protocol revision in a 2026-07-28 request's `_meta` envelope. */
const ENVELOPE_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface StdioMcpServer {
  /** The revision the connection was pinned to, once its opening message came. */
  readonly revision: () => string | undefined;
  close(): Promise<void>;
}

/** A transport over the process's stdio that hands each message to whichever server is connected to it. */
class Relay {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #started: Promise<void>;
  #start!: () => void;
  constructor(private readonly stdio: StdioServerTransport) {
    this.#started = new Promise<void>((resolve) => (this.#start = resolve));
  }
  /** Resolves once a server has connected (its handlers are set before it starts its transport). */
  get started(): Promise<void> {
    return this.#started;
  }
  async start(): Promise<void> {
    this.#start();
  }
  send(message: JSONRPCMessage): Promise<void> {
    return this.stdio.send(message);
  }
  close(): Promise<void> {
    return this.stdio.close();
  }
}

/** Serves the agents over this process's stdio until `close()` or the transport closes (`onClose`). */
export async function serveCairnMcpStdio(
  options: CairnMcpServerOptions,
  onClose: () => void,
  onError: (error: unknown) => void = (e) => console.error('cairn mcp:', e),
): Promise<StdioMcpServer> {
  const stdio = new StdioServerTransport();
  const relay = new Relay(stdio);
  const held: JSONRPCMessage[] = [];
  let deliver: ((message: JSONRPCMessage) => void) | undefined;
  let revision: string | undefined;
  let closeServer: (() => Promise<void>) | undefined;

  const pin = async (opening: JSONRPCMessage): Promise<void> => {
    const stateless = claimsStateless(opening) ? await loadStateless(onError) : undefined;
    if (stateless) {
      const handle = stateless.serveStdio(() => stateless.createStatelessCairnMcpServer(options), {
        legacy: 'reject',
        transport: relay as never,
        onerror: onError,
      });
      closeServer = () => handle.close();
      revision = stateless.STATELESS_MCP_REVISION;
    } else {
      const server = createCairnMcpServer(options);
      await server.connect(relay);
      closeServer = () => server.close();
      revision = '2025-11-25';
    }
    await relay.started;
    deliver = (message) => relay.onmessage?.(message);
    for (const message of held.splice(0)) deliver(message);
  };

  stdio.onmessage = (message) => {
    if (deliver) return deliver(message);
    held.push(message);
    if (held.length === 1 && !closeServer)
      void pin(message).catch((error: unknown) => {
        onError(error);
        void stdio.close();
      });
  };
  stdio.onerror = (error) => relay.onerror?.(error);
  stdio.onclose = () => {
    relay.onclose?.();
    onClose();
  };
  await stdio.start();
  return {
    revision: () => revision,
    async close() {
      await closeServer?.().catch(() => undefined);
      await stdio.close().catch(() => undefined);
    },
  };
}

function claimsStateless(message: JSONRPCMessage): boolean {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return typeof meta?.[ENVELOPE_VERSION] === 'string';
}

/** The v2 server's stdio entry and Cairn's stateless server; undefined (said once) when not installed. */
async function loadStateless(onError: (error: unknown) => void) {
  try {
    return await requirePeers('MCP 2026-07-28 (cairn mcp)', FEATURE_PEERS.mcpServer2026, async () => ({
      ...(await import('@modelcontextprotocol/server/stdio')),
      ...(await import('./stateless-mcp-server.js')),
    }));
  } catch (error) {
    if (!MissingPeerError.isInstance(error)) throw error;
    onError(error);
    return undefined;
  }
}
