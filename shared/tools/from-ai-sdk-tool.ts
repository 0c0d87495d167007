/**
 * fromAiSdkTool: an AI SDK tool (`tool({ description, inputSchema, outputSchema, needsApproval,
 * execute })` from `ai`) as a Cairn tool, in one line. The AI SDK's tool record has no name (the
 * key of the `tools` object is the name), so the name comes first. It reads the tool's fields
 * only; it does not import `ai`. Workflow-safe to import, deterministic; `execute` runs only in
 * the tool activity, like any Cairn tool's.
 */
import type { z } from 'zod';
import { defineTool, type Tool, type ToolConfig, type ToolContext } from './define-tool.js';
import { DefinitionError } from '../failures/definition-error.js';

/** What `execute` of an AI SDK tool receives besides the input (the fields Cairn can fill). */
export interface AiSdkToolCallOptions<Deps> {
  readonly toolCallId: string;
  /** Always empty: the transcript stays in the workflow. */
  readonly messages: never[];
  readonly abortSignal: AbortSignal;
  /** The worker's `deps` (the AI SDK's per-call tool context). */
  readonly context: Deps;
}

/**
 * The fields of an AI SDK tool that Cairn uses; a `tool({...})` from `ai` 5–7 fits. Schemas must
 * be zod schemas (Cairn derives the JSON Schema and validates with them), the description text.
 */
export interface AiSdkToolLike<Input, Output, Deps = unknown> {
  /** Text; a function of the call's context (ai 7) cannot describe the tool ahead of time: pass `extras.description`. */
  readonly description?: unknown;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  /** `true`, or a pure synchronous function of the input; a function returning a promise always asks. */
  readonly needsApproval?: unknown;
  execute?(input: Input, options: AiSdkToolCallOptions<Deps>): PromiseLike<Output> | Output | AsyncIterable<Output>;
}

/** What Cairn adds that the AI SDK has no field for: side effects, examples, retries, timeouts... */
export type AiSdkToolExtras<Input, Output> = Omit<
  ToolConfig<z.ZodType<Input>, Output, unknown>,
  'name' | 'description' | 'input' | 'output' | 'execute'
> & { readonly description?: string };

/**
 * Converts an AI SDK tool. `needsApproval: true` becomes `approval: 'always'`, a function becomes
 * the approval rule (it must be pure and synchronous: the workflow calls it on replay); the
 * tool's `execute` gets `{ toolCallId, messages: [], abortSignal, context: deps }`; a streaming
 * `execute` (an async iterable) counts its last value. `extras` sets what the AI SDK cannot say,
 * e.g. `{ sideEffects: 'once' }` for a tool that must never run twice.
 *
 * ```ts
 * const weather = tool({ description: 'Weather in a city', inputSchema: z.object({ city: z.string() }), execute });
 * export const getWeather = fromAiSdkTool('get_weather', weather);
 * ```
 *
 * Throws DefinitionError when the tool has no `execute` (a provider-executed or client-side tool),
 * no description, or a schema that is not a zod schema (`jsonSchema()` and other Standard
 * Schemas are not supported: Cairn validates arguments with zod inside the workflow).
 */
export function fromAiSdkTool<Input, Output, Deps = unknown>(
  name: string,
  tool: AiSdkToolLike<Input, Output, Deps>,
  extras: AiSdkToolExtras<Input, Output> = {},
): Tool<z.ZodType<Input>, Output, Deps> {
  const { needsApproval } = tool;
  if (typeof tool.execute !== 'function')
    throw new DefinitionError(
      'invalid_input_schema',
      `AI SDK tool ${name} has no execute function: Cairn runs tools on the worker, so it needs one.`,
    );
  const execute = tool.execute.bind(tool);
  const description = extras.description ?? tool.description;
  if (description !== undefined && typeof description !== 'string')
    throw new DefinitionError(
      'invalid_tool_description',
      `AI SDK tool ${name} describes itself with a function; give Cairn the text: fromAiSdkTool(name, tool, { description }).`,
    );
  const input = zodSchema(name, 'inputSchema', tool.inputSchema) as z.ZodType<Input>;
  const output =
    tool.outputSchema === undefined
      ? undefined
      : (zodSchema(name, 'outputSchema', tool.outputSchema) as z.ZodType<Output>);
  const approval =
    typeof needsApproval === 'function'
      ? (args: Input) => {
          // A promise cannot be awaited in a workflow's approval check; it is truthy, so it asks: when in doubt, ask.
          return Boolean(needsApproval(args, { toolCallId: '', messages: [], context: undefined }));
        }
      : needsApproval
        ? ('always' as const)
        : undefined;
  return defineTool<z.ZodType<Input>, Output, Deps>({
    approval,
    ...extras,
    name,
    description: description ?? '',
    input,
    ...(output !== undefined && { output }),
    execute: async (args: Input, context: ToolContext<Deps>) => {
      const result = execute(args, {
        toolCallId: context.toolCallId,
        messages: [],
        abortSignal: context.signal,
        context: context.deps,
      });
      return (isAsyncIterable<Output>(result) ? await lastValue(result) : await result) as Output;
    },
  });
}

function zodSchema(tool: string, field: string, schema: unknown): z.ZodType {
  // zod 4 schemas (classic and mini) carry `_zod`; the AI SDK's jsonSchema() and other Standard Schemas do not.
  if (typeof schema === 'object' && schema !== null && '_zod' in schema && 'safeParse' in schema)
    return schema as z.ZodType;
  throw new DefinitionError(
    'invalid_input_schema',
    `AI SDK tool ${tool}: ${field} must be a zod 4 schema (z.object({...})); jsonSchema() and other schema libraries are not supported.`,
  );
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

async function lastValue<T>(values: AsyncIterable<T>): Promise<T | undefined> {
  let last: T | undefined;
  for await (const value of values) last = value;
  return last;
}
