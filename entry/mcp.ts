/**
 * `cairn-agents/mcp`: each served agent is an MCP tool, for IDE assistants and desktop clients.
 * `createCairnMcpHandler({ client, agents, authorize })` serves them over streamable HTTP as one
 * web-standard `Request → Response` handler; `createCairnMcpServer` is the `McpServer` to connect
 * to any transport (`cairn mcp` serves it over stdio). A run's question or held call is an
 * elicitation where the client supports it, else the result says how to answer. See docs/mcp-server.md.
 *
 * Who imports it: your server (Node). Not workflow code.
 */
export { createCairnMcpServer, type CairnMcpServerOptions } from '../client/mcp/cairn-mcp-server.js';
export { createCairnMcpHandler, type CairnMcpHandler, type CairnMcpHandlerOptions } from '../client/mcp/cairn-mcp-handler.js';
export { toNodeListener } from '../client/http/node-listener.js';
export { bearerToken, type Authorize } from '../client/http/authorize.js';
