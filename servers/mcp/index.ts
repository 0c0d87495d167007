/** What `cairn-agents/mcp` exports at run time, loaded by the entry point once the MCP SDK is known to be there. Node-only. */
export { createCairnMcpServer } from './cairn-mcp-server.js';
export { createCairnMcpHandler } from './cairn-mcp-handler.js';
