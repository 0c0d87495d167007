/**
 * The 2026-07-28 leg of the MCP endpoint: the SDK's `createMcpHandler` (strict, `legacy: 'reject'`)
 * over a fresh stateless server per request, and the SDK's own classifier of which leg a request
 * belongs to (`isLegacyRequest`: a request with no 2026-07-28 `_meta` envelope or protocol-version
 * header is 2025-era, served by the session handler beside it). Loaded with `import()` by
 * cairn-mcp-handler.ts, so that without `@modelcontextprotocol/server` 2025-11-25 keeps working.
 * Node-only (client side).
 */
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { CairnMcpServerOptions } from './cairn-mcp-server.js';
import { createStatelessCairnMcpServer } from './stateless-mcp-server.js';

export interface StatelessMcpEndpoint {
  /** Whether the request is 2025-era (not this leg's); reads the body from a clone. */
  isLegacy(request: Request): Promise<boolean>;
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export function createStatelessMcpEndpoint(
  options: CairnMcpServerOptions,
  limits: { readonly maxBodyBytes: number; readonly onError: (error: unknown) => void },
): StatelessMcpEndpoint {
  let closing = false;
  const handler = createMcpHandler(
    (ctx) => createStatelessCairnMcpServer(options, { request: ctx.requestInfo, closing: () => closing }),
    {
      legacy: 'reject',
      maxRequestBodySize: limits.maxBodyBytes,
      // The SDK reports requests it rejected (a bad envelope, a refused requestState) here too.
      onerror: limits.onError,
    },
  );
  return {
    isLegacy: (request) => isLegacyRequest(request, undefined, { maxRequestBodySize: limits.maxBodyBytes }),
    fetch: (request) => handler.fetch(request),
    async close() {
      closing = true;
      await handler.close();
    },
  };
}
