/**
 * The MCP listing activity: at the start of a run, the tools of the agent's MCP servers (by
 * server name: commands, URLs, headers and env stay on the worker, never in history). The
 * workflow records the listing once and carries it through continue-as-new. Worker side only.
 */
import type { McpListing } from '../shared/mcp/mcp-server.js';
import type { McpConnections } from './mcp-connections.js';

export interface McpActivities {
  listMcpTools(servers: readonly string[]): Promise<McpListing[]>;
}

export function createMcpActivities(connections: McpConnections): McpActivities {
  return {
    listMcpTools: (servers) => Promise.all(servers.map((name) => connections.list(String(name)))),
  };
}
