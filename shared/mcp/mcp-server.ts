/**
 * mcpServer: an MCP server as a tool source of an agent (seed 001's MCP-backed tools). How to reach
 * it (a stdio command, or a streamable HTTP URL), which of its tools the agent gets, and per-tool
 * overrides of side effects, approval and review. The server's tools are listed when a run starts
 * (an activity; recorded once, carried through continue-as-new) and every call is validated in the
 * workflow against the tool's JSON Schema, as for zod tools (shared/mcp/mcp-tools.ts).
 * Workflow-safe, deterministic: plain data; the worker connects (activities/mcp-connections.ts).
 */
import type { ApprovalRule, SideEffects } from '../tools/define-tool.js';
import { DefinitionError } from '../failures/definition-error.js';
import type { JsonObject } from '../json/json.js';
import { checkReviewConfig, type ReviewConfig } from '../tools/review-config.js';

/** Overrides for one of the server's tools, by its MCP name. */
export interface McpToolOverrides {
  /** Default from the tool's annotations: `readOnlyHint` → none, `idempotentHint` → idempotent, else once. */
  readonly sideEffects?: SideEffects;
  /** Default: `always` when the tool declares `destructiveHint: true`, else `never`. */
  readonly approval?: ApprovalRule<JsonObject>;
  readonly review?: ReviewConfig;
  /** Replaces the server's description of the tool. */
  readonly description?: string;
}

export interface McpServerConfig {
  /** snake_case; names the server in logs and prefixes its tools (`<name>_<tool>`) unless `prefix` says otherwise. */
  readonly name: string;
  /** A stdio server: the command and its arguments (spawned by each worker, once). */
  readonly command?: string;
  readonly args?: readonly string[];
  /** Environment for a stdio server, over the worker's own. Kept on the worker: never in history. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** A streamable HTTP server. */
  readonly url?: string;
  /** Headers for an HTTP server (e.g. Authorization). Kept on the worker: never in history. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Only these tools (MCP names). */
  readonly include?: readonly string[];
  /** Not these tools (MCP names). */
  readonly exclude?: readonly string[];
  /** What the model sees before each tool's name; default `<name>_`; `''` for none. */
  readonly prefix?: string;
  /** Per-tool overrides, by MCP name. */
  readonly tools?: Readonly<Record<string, McpToolOverrides>>;
  /** Per call, in ms (default 30 s); past it the call is a `timeout` (the planner backs off). */
  readonly timeoutMs?: number;
}

export interface McpServer extends McpServerConfig {
  readonly prefix: string;
  readonly timeoutMs: number;
}

const SERVER_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

/** Define an MCP server for `defineAgent({ mcpServers })`. Throws DefinitionError for a bad name or no way to reach it. */
export function mcpServer(config: McpServerConfig): McpServer {
  const { name } = config;
  if (typeof name !== 'string' || !SERVER_NAME.test(name) || name.length > 32)
    throw new DefinitionError(
      'invalid_mcp_server',
      `MCP server name ${JSON.stringify(name)} must be snake_case, at most 32 characters.`,
    );
  if (!config.command === !config.url)
    throw new DefinitionError(
      'invalid_mcp_server',
      `MCP server ${name} needs exactly one of \`command\` (stdio) or \`url\` (streamable HTTP).`,
    );
  if (config.url !== undefined && !/^https?:\/\//.test(config.url))
    throw new DefinitionError('invalid_mcp_server', `MCP server ${name}: \`url\` must be http(s).`);
  for (const [tool, overrides] of Object.entries(config.tools ?? {}))
    checkReviewConfig(`${name}/${tool}`, overrides.review);
  return Object.freeze({
    ...config,
    prefix: config.prefix ?? `${name}_`,
    timeoutMs: config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
  });
}

/** One tool as the server lists it, bounded by the listing activity. */
export interface McpToolInfo {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly annotations?: {
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
  };
}

/**
 * What listing a server at the start of a run found: its tools and the MCP revision it was found to
 * speak (`2026-07-28`, `2025-11-25`, …; absent in listings recorded before it was kept), or why it
 * could not be reached.
 */
export type McpListing =
  | {
      readonly server: string;
      readonly tools: readonly McpToolInfo[];
      readonly revision?: string;
      readonly error?: undefined;
    }
  | { readonly server: string; readonly error: string; readonly tools?: undefined };
