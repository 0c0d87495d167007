/**
 * The tools of an agent's MCP servers for one run: listed by an activity when the run starts
 * (recorded once in history), carried through continue-as-new, and turned into Cairn tools the
 * workflow validates calls against (shared/mcp/mcp-tools.ts). Agents without MCP servers schedule
 * nothing, so their histories are what they were. Workflow code (sandbox).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Agent } from '../shared/agent/define-agent.js';
import type { AnyTool } from '../shared/tools/define-tool.js';
import type { McpListing } from '../shared/mcp/mcp-server.js';
import { mcpTools } from '../shared/mcp/mcp-tools.js';

/** The listing activity's signature (activities/mcp-activity.ts). */
type McpActivities = { listMcpTools(servers: readonly string[]): Promise<McpListing[]> };

const { listMcpTools } = proxyActivities<McpActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 3, initialInterval: '1s' },
});

/** The listings of the agent's servers: the carried ones, else listed now (none for an agent without servers). */
export async function mcpListings(
  agent: Agent,
  carried: readonly McpListing[] | undefined,
): Promise<readonly McpListing[]> {
  const servers = agent.mcpServers ?? [];
  if (carried || servers.length === 0) return carried ?? [];
  const names = servers.map((s) => s.name);
  try {
    return await listMcpTools.executeWithOptions(
      { startToCloseTimeout: '1m', summary: `list MCP tools: ${names.join(', ')}`.slice(0, 200) },
      [names],
    );
  } catch (err) {
    const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return names.map((server) => ({ server, error: `Listing the MCP tools failed: ${why}`.slice(0, 1_000) }));
  }
}

/** The agent's own tools, then each server's tools from its listing. */
export function runTools(agent: Agent, listings: readonly McpListing[]): AnyTool[] {
  return [
    ...agent.tools,
    ...(agent.mcpServers ?? []).flatMap((server) =>
      mcpTools(
        server,
        listings.find((l) => l.server === server.name),
      ),
    ),
  ];
}

/** What the model is told of servers that could not be listed (their tools are not offered). */
export function unavailableNote(listings: readonly McpListing[]): string | undefined {
  const failed = listings.filter((l) => l.error !== undefined);
  if (failed.length === 0) return undefined;
  return `Note from Cairn: ${failed.map((l) => `the MCP server ${l.server} could not be reached when this run started (${l.error})`).join('; ')}. Its tools are not available in this run.`;
}
