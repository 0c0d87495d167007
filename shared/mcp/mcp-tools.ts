/**
 * The tools of an MCP server, as Cairn tools: from the listing recorded when the run started, one
 * tool per listed MCP tool (include/exclude applied), named `<prefix><tool>` in snake_case, whose
 * input schema is the server's JSON Schema turned into zod — so a call is checked in the workflow
 * with the same hints as a zod tool (missing fields, expected vs received, enum values, an example)
 * and an invalid call schedules no activity. The workflow and the worker build the same tools from
 * the same listing; only the worker's have an `execute` that reaches the server.
 * Workflow-safe, deterministic; recursion is bounded by constants, never by a payload.
 */
import { z } from 'zod';
import { defineTool, type AnyTool, type SideEffects, type ToolContext } from '../tools/define-tool.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { McpListing, McpServer, McpToolInfo } from './mcp-server.js';
import { measureJson } from '../json/json-measure.js';
import { lazySchema } from '../lazy-schema.js';

const MCP_TOOL = Symbol.for('cairn.McpTool');

/** Which server and MCP tool a Cairn tool calls. */
export interface McpToolRef {
  readonly server: string;
  readonly tool: string;
}

/** Calls `ref` on the worker's connection; throws a ToolFailure for a failure it understands. */
export type McpExecutor = (ref: McpToolRef, args: JsonValue, context: ToolContext) => Promise<unknown>;

/** The server and MCP tool behind `tool`, when it is an MCP tool (from any copy of this module). */
export function mcpToolOf(tool: AnyTool): McpToolRef | undefined {
  return (tool as { [MCP_TOOL]?: McpToolRef })[MCP_TOOL];
}

/** `everything_` + `get-sum` → `everything_get_sum`; camelCase splits too. Empty when nothing usable is left. */
export function mcpToolName(prefix: string, name: string): string {
  return `${prefix}${name}`
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64)
    .replace(/_$/, ''); // runs of underscores are one by now
}

/**
 * The Cairn tools of one server's listing. A tool whose name collides with an earlier one, or is
 * empty once made snake_case, is left out; a schema zod cannot read is checked as "any JSON object".
 */
export function mcpTools(server: McpServer, listing: McpListing | undefined, execute?: McpExecutor): AnyTool[] {
  // A listing is data from outside (a server, or a carried run input): anything malformed is left out, never thrown.
  if (!Array.isArray(listing?.tools)) return [];
  const seen = new Set<string>();
  const tools: AnyTool[] = [];
  for (const info of listing.tools as readonly unknown[]) {
    if (!isToolInfo(info)) continue;
    if (server.include && !server.include.includes(info.name)) continue;
    if (server.exclude?.includes(info.name)) continue;
    const name = mcpToolName(server.prefix, info.name);
    if (!name || seen.has(name)) continue;
    const tool = toTool(server, info, name, execute);
    if (!tool) continue;
    seen.add(name);
    tools.push(tool);
  }
  return tools;
}

function isToolInfo(value: unknown): value is McpToolInfo {
  const info = value as McpToolInfo | null;
  return (
    typeof info === 'object' &&
    info !== null &&
    typeof info.name === 'string' &&
    isJsonObject(info.inputSchema as JsonValue) &&
    (info.description === undefined || typeof info.description === 'string')
  );
}

/** The Cairn tool of one listed MCP tool; undefined when even "any object" cannot describe it. */
function toTool(server: McpServer, info: McpToolInfo, name: string, execute?: McpExecutor): AnyTool | undefined {
  try {
    return defineMcpTool(server, info, name, zodOf(info.inputSchema), execute);
  } catch {
    try {
      return defineMcpTool(server, info, name, ANY_OBJECT, execute);
    } catch {
      return undefined;
    }
  }
}

function defineMcpTool(
  server: McpServer,
  info: McpToolInfo,
  name: string,
  input: z.ZodType,
  execute?: McpExecutor,
): AnyTool {
  const ref: McpToolRef = { server: server.name, tool: info.name };
  const own = server.tools ?? {};
  const overrides = (Object.hasOwn(own, info.name) && own[info.name]) || {};
  const example = input === ANY_OBJECT ? undefined : exampleOf(info.inputSchema);
  const description =
    (overrides.description ?? info.description ?? '').trim() ||
    `${info.name} (a tool of the MCP server ${server.name}).`;
  const tool = defineTool({
    name,
    description,
    input,
    ...(example !== undefined && input.safeParse(example).success && { examples: [example] }),
    sideEffects: overrides.sideEffects ?? sideEffectsOf(info),
    approval: overrides.approval ?? (info.annotations?.destructiveHint === true ? 'always' : 'never'),
    ...(overrides.review && { review: overrides.review }),
    timeouts: { startToCloseMs: server.timeoutMs + 5_000 },
    execute: (args: JsonValue, context: ToolContext) => {
      if (!execute) throw new Error(`${name} calls the MCP server ${server.name}, which only a worker reaches.`);
      return execute(ref, args, context) as Promise<JsonValue>;
    },
  });
  // The model sees the server's own schema, not zod's rendering of it.
  const { $schema: _schema, ...argsSchema } = info.inputSchema;
  return Object.freeze({ ...tool, spec: Object.freeze({ ...tool.spec, args_schema: argsSchema }), [MCP_TOOL]: ref });
}

/** MCP's annotations as Cairn's side effects: read-only → none, idempotent → idempotent, else once. */
function sideEffectsOf(info: McpToolInfo): SideEffects {
  if (info.annotations?.readOnlyHint === true) return 'none';
  if (info.annotations?.idempotentHint === true) return 'idempotent';
  return 'once';
}

/** Built on first use and once per workflow thread (shared/lazy-schema.ts): most runs have no MCP server. */
const ANY_OBJECT = lazySchema(() => z.record(z.string(), z.unknown()), { sharedAs: 'cairn.mcp.anyObject' });

/** Deeper schemas take any object: zod reads a schema recursively. */
const MAX_SCHEMA_DEPTH = 16;

function zodOf(schema: JsonObject): z.ZodType {
  if (measureJson(schema, { maxDepth: MAX_SCHEMA_DEPTH }).stopped !== undefined) return ANY_OBJECT;
  try {
    const parsed = z.fromJSONSchema(schema as never);
    // Tool arguments are an object whatever the server says; a schema of another shape is not trusted.
    return parsed.safeParse({}).success || schema.type === 'object' ? parsed : ANY_OBJECT;
  } catch {
    return ANY_OBJECT;
  }
}

/** A filled-in example of a schema's required fields (defaults, first enum values, typed placeholders); nested up to 3 levels. */
function exampleOf(schema: JsonObject, depth = 0): JsonObject | undefined {
  if (depth > 3 || !isJsonObject(schema.properties)) return undefined;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === 'string')
    : [];
  const example: Record<string, JsonValue> = {};
  for (const key of required) {
    const field = schema.properties[key];
    if (!isJsonObject(field)) return undefined;
    const value = exampleValue(field, depth);
    if (value === undefined) return undefined;
    example[key] = value;
  }
  return example;
}

function exampleValue(field: JsonObject, depth: number): JsonValue | undefined {
  if (field.default !== undefined) return field.default;
  if (Array.isArray(field.enum) && field.enum.length > 0) return field.enum[0];
  if (field.const !== undefined) return field.const;
  const type = Array.isArray(field.type) ? field.type[0] : field.type;
  const min = typeof field.minimum === 'number' ? field.minimum : 0;
  switch (type) {
    case 'string':
      return typeof field.minLength === 'number' && field.minLength > 7 ? 'x'.repeat(field.minLength) : 'example';
    case 'number':
      return min;
    case 'integer':
      return Math.ceil(min);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return exampleOf(field, depth + 1);
  }
  return undefined;
}
