/**
 * `cairn-agents/mcp`: each served agent is an MCP tool, for IDE assistants and desktop clients.
 * `createCairnMcpHandler({ client, agents, authorize })` serves them over streamable HTTP as one
 * web-standard `Request → Response` handler; `createCairnMcpServer` is the `McpServer` to connect
 * to any transport (`cairn mcp` serves it over stdio). A run's question or held call is an
 * elicitation where the client supports it, else the result says how to answer. See docs/mcp-server.md.
 *
 * Needs the optional peer `@modelcontextprotocol/sdk` (`npm install @modelcontextprotocol/sdk`),
 * loaded here: without it, importing this entry point fails with one line naming it.
 * Who imports it: your server (Node). Not workflow code.
 */
import { FEATURE_PEERS, requirePeers } from '../shared/optional-peers.js';

const mcp = await requirePeers('cairn-agents/mcp', FEATURE_PEERS.mcp, () => import('../servers/mcp/index.js'));

/** The `McpServer` (of `@modelcontextprotocol/sdk`) serving each agent as a tool, to connect to any transport. */
export const createCairnMcpServer: typeof mcp.createCairnMcpServer = mcp.createCairnMcpServer;
/** One `Request → Response` handler serving the agents over MCP's streamable HTTP (docs/mcp-server.md). */
export const createCairnMcpHandler: typeof mcp.createCairnMcpHandler = mcp.createCairnMcpHandler;
export type { CairnMcpServerOptions } from '../servers/mcp/cairn-mcp-server.js';
export type { CairnMcpHandler, CairnMcpHandlerOptions } from '../servers/mcp/cairn-mcp-handler.js';
export { toNodeListener } from '../servers/http/node-listener.js';
export { bearerToken, type Authorize } from '../servers/http/authorize.js';
