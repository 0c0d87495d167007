/**
 * defineTool: a tool's whole definition in one place — its contract (name, description, zod
 * schemas, examples, side effects, approval rule, timeouts, retries) and its `execute`.
 *
 * The split between workflow and worker is by *dependency*, not by file: a tool module imports
 * only sandbox-safe code (zod, shared/), so the workflow can import it to validate arguments and
 * decide approval deterministically; anything with side effects (HTTP clients, databases, the
 * file system) reaches `execute` through `context.deps`, injected when the worker is created.
 * `execute` is only ever called by the tool activity on the worker.
 * Workflow-safe to import; `execute` is not deterministic and must only run in an activity.
 */
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../json/json.js';
import { assertValidatorName, type Validator } from '../guards/validator.js';
import type { SemanticCheck } from '../guards/semantic-check.js';
import type { GuardModes } from '../guards/shadow-guard.js';
import type { PayloadStore } from './payload-store.js';
import { DefinitionError } from '../failures/definition-error.js';
import { checkReviewConfig, type ReviewConfig } from './review-config.js';
import { toJsonValue } from '../json/json-safe.js';
import { isJsonObject } from '../json/json.js';
import { summariseIssues, toFieldIssues } from '../guards/zod-issues.js';
import type { ReconcileInput, ReconcileOutcome } from './reconcile.js';
import type { Workspace } from '../workspace/workspace.js';

/** What running the tool does to the world; decides retries and budgets. */
export type SideEffects = 'none' | 'idempotent' | 'once';

/**
 * When a human must review a call before it runs. The function is declared as a method so a tool
 * with specific argument types still fits `AnyTool` (method parameters are bivariant).
 */
export type ApprovalRule<Args> = 'never' | 'always' | { approve(args: Args): boolean }['approve'];

/** Temporal retry settings for infrastructure failures (crashes, timeouts) of one tool. */
export interface ToolRetryPolicy {
  readonly maximumAttempts?: number;
  readonly initialIntervalMs?: number;
  readonly backoffCoefficient?: number;
  readonly maximumIntervalMs?: number;
}

export interface ToolTimeouts {
  /** Per attempt. Default 30 s. */
  readonly startToCloseMs?: number;
  /**
   * Across all attempts. Default: `startToCloseMs`, so Temporal retries a crash within one
   * attempt's time but not a hang; a timeout goes to the planner, which backs off and re-runs the
   * call (3 runs a turn by default): a tool that never answers is a `timeout` after ~3 × 30 s. Set
   * it longer to let Temporal retry a timed-out attempt too.
   */
  readonly scheduleToCloseMs?: number;
  /** Tools that heartbeat can be cancelled and time out early. */
  readonly heartbeatMs?: number;
}

/** What `execute` receives besides its arguments. */
export interface ToolContext<Deps = unknown> {
  readonly toolCallId: string;
  /**
   * Dedupe side effects with it. Stable across Temporal retries and back-off re-runs of the same
   * call; for `once` tools also across calls with the same arguments in a run until one of them
   * has a known outcome (`<workflowId>/<tool>#<argsHash>/<n>`, see docs/tools.md). Runs started
   * before that scheme get `<workflowId>/<toolCallId>`.
   */
  readonly idempotencyKey: string;
  readonly attempt: number;
  /** Side-effecting dependencies injected by the worker (clients, connections). */
  readonly deps: Deps;
  /**
   * Aborted when Temporal cancels the activity (also when its worker is shutting down), and when
   * `confirmAttempt` finds that this attempt is no longer the current one.
   */
  readonly signal: AbortSignal;
  /**
   * Asks the Temporal server whether this attempt still owns the call (one heartbeat, answered);
   * throws a CancelledFailure and aborts `signal` when it timed out or was cancelled. Cairn calls
   * it before a `once` tool's `execute`; call it again right before an irreversible step that
   * follows slow work. A no-op outside a worker (tests). See docs/tools.md, "Late workers".
   */
  readonly confirmAttempt: () => Promise<void>;
  /** The worker's store of offloaded results, if it has one (the `read_result` tool reads it). */
  readonly payloads?: PayloadStore;
  /**
   * The run's workspace at the snapshot this call starts from, for tools with `workspace: true`
   * (docs/workspaces.md). What the call changes becomes the run's next snapshot when it ends `ok`.
   */
  readonly workspace?: Workspace;
}

export interface ToolConfig<Input extends z.ZodType, Output, Deps> {
  /** snake_case, unique within an agent; what the model calls. */
  readonly name: string;
  readonly description: string;
  readonly input: Input;
  /** Guards the output: JSON text is parsed, then checked against this schema. */
  readonly output?: z.ZodType<Output>;
  /** Valid inputs; the first is offered to the model as `exampleInput` when it gets one wrong. */
  readonly examples?: readonly z.input<Input>[];
  readonly sideEffects?: SideEffects;
  readonly approval?: ApprovalRule<z.output<Input>>;
  /** When a call is held for review: which decisions the reviewer may take, and what they are told. */
  readonly review?: ReviewConfig;
  /** Semantic check on an output that passed the schema: wrong meaning, or partial data. */
  readonly check?: SemanticCheck<Output, z.output<Input>>;
  /** Validator post-hooks, run in order after the tool body returns. Never shown to the model. */
  readonly postHook?: Validator | readonly Validator[];
  readonly timeouts?: ToolTimeouts;
  readonly retry?: ToolRetryPolicy;
  /**
   * What the tool reads of `context.deps` (its keys). A worker whose deps lack one refuses to start,
   * naming the tool and the key: a missing dependency is the deployment's failure, found before a
   * run asks anybody anything.
   */
  readonly needs?: readonly string[];
  /**
   * `shadow` runs the output schema and/or the semantic check without enforcing them: what they
   * would refuse is recorded in the result's `shadow` field and the output passes on. Default
   * `enforce`. Use it to try a guard on real traffic before enforcing it (docs/tools.md).
   */
  readonly guardMode?: GuardModes;
  /**
   * UTF-8 bytes of JSON one result may have (default: the worker's, else 256 KiB; at most
   * 1.5 MiB). Above it the result keeps what fits, as `partial_data` (docs/size-limits.md).
   */
  readonly maxResultBytes?: number;
  /**
   * The tool works in the run's workspace (`context.workspace`; docs/workspaces.md): its calls run
   * one at a time, each on the snapshot the one before left, and a failed call changes nothing.
   * Its effects stay in the workspace, so it is never `once`: a crashed call runs again on the
   * snapshot it started from.
   */
  readonly workspace?: boolean;
  /**
   * For `once` tools: after an attempt whose outcome is unknown (timed out, its worker died), the
   * run asks this, as an activity, whether the effect with `idempotencyKey` happened — instead of
   * asking a person. `{ happened: true, result }` records `result` as the call's result (guarded
   * like `execute`'s output); `{ happened: false }` runs the call again under the same key;
   * `{ unknown: reason }` (or a throw) asks a person, as without `reconcile`. It must only read.
   */
  reconcile?(
    input: ReconcileInput<z.output<Input>>,
    context: ToolContext<Deps>,
  ): Promise<ReconcileOutcome<Output>> | ReconcileOutcome<Output>;
  /**
   * The tool body. Return the output (or JSON text, which is parsed and guarded), or throw a
   * `ToolFailure` for a typed failure (rate limited, unavailable, partial data...). Any other
   * throw is an infrastructure failure: Temporal retries it under `retry`.
   */
  execute(args: z.output<Input>, context: ToolContext<Deps>): Promise<Output | string> | Output | string;
}

/** The tool spec a model sees: exactly these three keys. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly args_schema: JsonObject;
}

export interface Tool<Input extends z.ZodType = z.ZodType, Output = unknown, Deps = unknown>
  extends ToolConfig<Input, Output, Deps> {
  readonly sideEffects: SideEffects;
  readonly approval: ApprovalRule<z.output<Input>>;
  readonly postHooks: readonly Validator[];
  /** `{ name, description, args_schema }`, computed once (in a workflow bundle, when first read). */
  readonly spec: ToolSpec;
}

/** Any tool, whatever its types; what agents and registries hold. */
// biome-ignore lint/suspicious/noExplicitAny: a tool of any input and output; unknown would make every typed tool unassignable
export type AnyTool = Tool<z.ZodType, any, any>;

/** Set by Cairn's workflow bundler (runtime/workflow-bundle.ts); undeclared anywhere else. */
declare const CAIRN_WORKFLOW_BUNDLE: boolean | undefined;
const IN_WORKFLOW_BUNDLE = typeof CAIRN_WORKFLOW_BUNDLE !== 'undefined';

/** snake_case, starting with a letter; what every model provider accepts as a function name. */
const TOOL_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * Define a tool. Defaults: `sideEffects: 'none'`, `approval: 'never'`; `postHook` becomes
 * `postHooks[]`. Throws DefinitionError (once, at module load) for a name that is not snake_case,
 * an empty description, an input schema that is not an object, an example that fails the input
 * schema, or a bad or reserved validator name (ReservedValidatorNameError).
 * Deterministic; the returned tool is frozen.
 */
export function defineTool<Input extends z.ZodType, Output = unknown, Deps = unknown>(
  config: ToolConfig<Input, Output, Deps>,
): Tool<Input, Output, Deps> {
  const { name, description, input } = config;
  if (typeof name !== 'string' || !TOOL_NAME.test(name) || name.length > MAX_TOOL_NAME_LENGTH) {
    throw new DefinitionError(
      'invalid_tool_name',
      `Tool name ${JSON.stringify(name)} must be snake_case (a-z, 0-9, _), at most ${MAX_TOOL_NAME_LENGTH} characters.`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new DefinitionError(
      'invalid_tool_description',
      `Tool ${name} needs a description: it is what the model reads.`,
    );
  }
  checkInputSchema(name, input);
  let spec: ToolSpec | undefined;
  const specOnce = () =>
    (spec ??= Object.freeze({ name, description: description.trim(), args_schema: argsSchema(name, input) }));
  // In a workflow bundle the module is evaluated again for every run, and the worker that runs it
  // has checked these definitions already (it imported them): the JSON Schema is made when read
  // (by the agent's version, for the run's own agent only), the examples are not checked again.
  if (!IN_WORKFLOW_BUNDLE) {
    specOnce();
    for (const [index, example] of (config.examples ?? []).entries()) checkExample(name, input, example, index);
  }
  const review = checkReviewConfig(name, config.review);
  if (config.reconcile !== undefined && (typeof config.reconcile !== 'function' || config.sideEffects !== 'once')) {
    throw new DefinitionError(
      'invalid_reconcile',
      `Tool ${name} has a reconcile: only a function, and only for sideEffects: 'once' (other tools are simply run again).`,
    );
  }
  if (
    config.needs !== undefined &&
    (!Array.isArray(config.needs) || config.needs.some((key) => typeof key !== 'string' || key === ''))
  )
    throw new DefinitionError('invalid_needs', `Tool ${name}'s needs is a list of the keys of deps it reads.`);
  if (
    config.workspace !== undefined &&
    (typeof config.workspace !== 'boolean' || (config.workspace && config.sideEffects === 'once'))
  )
    throw new DefinitionError(
      'invalid_tool_workspace',
      `Tool ${name}'s workspace is true or false, and a workspace tool is not sideEffects: 'once' (a crashed call runs again on the snapshot it started from).`,
    );
  const hooks =
    config.postHook === undefined
      ? []
      : Array.isArray(config.postHook)
        ? [...config.postHook]
        : [config.postHook as Validator];
  for (const hook of hooks) assertValidatorName(hook?.name);
  const { postHook: _postHook, ...rest } = config;
  return Object.freeze({
    ...rest,
    sideEffects: config.sideEffects ?? 'none',
    approval: config.approval ?? 'never',
    ...(review && { review }),
    postHooks: Object.freeze(hooks),
    get spec() {
      return specOnce();
    },
  });
}

/** What the model is shown of a tool: `{ name, description, args_schema }`, nothing else. */
export function toolSpec(tool: AnyTool): ToolSpec {
  return tool.spec;
}

/**
 * Whether a human must review this call before it runs. An approval function that throws counts
 * as "yes": when in doubt, ask. The function must be pure, as the workflow calls it on replay.
 */
export function needsApproval(tool: AnyTool, args: JsonValue): boolean {
  const rule = tool.approval;
  if (rule === 'never') return false;
  if (rule === 'always') return true;
  try {
    return Boolean(rule(args));
  } catch {
    return true;
  }
}

/**
 * The input is a zod 4 schema at all: anything else (the fields without z.object, a JSON Schema, a
 * zod 3 schema) would otherwise fail deep inside zod, naming neither the tool nor the fix.
 */
function checkInputSchema(name: string, input: unknown): void {
  // zod 4 schemas (classic and mini) carry `_zod`.
  if (
    typeof input === 'object' &&
    input !== null &&
    '_zod' in input &&
    typeof (input as z.ZodType).safeParse === 'function'
  )
    return;
  throw new DefinitionError(
    'invalid_input_schema',
    `The input schema of ${name} must be a zod object schema, z.object({...}); got ${describeInput(input)}.`,
  );
}

function describeInput(input: unknown): string {
  if (input === undefined || input === null) return `${input}: give the tool an input`;
  if (typeof input !== 'object') return `a ${typeof input}`;
  if (Array.isArray(input)) return 'an array';
  if ('_def' in input) return "a zod 3 schema: define it with zod 4 (import { z } from 'zod', zod >= 4)";
  const values = Object.values(input);
  if (values.length > 0 && values.every((v) => typeof v === 'object' && v !== null && ('_zod' in v || '_def' in v)))
    return `a plain object of fields (${Object.keys(input).join(', ')}): wrap it in z.object(...)`;
  if ('type' in input || 'properties' in input || '$schema' in input)
    return 'a JSON Schema: write it with zod, or convert it with z.fromJSONSchema(...)';
  return 'a plain object: wrap its fields in z.object(...)';
}

function argsSchema(name: string, input: z.ZodType): JsonObject {
  let schema: Record<string, unknown>;
  try {
    // The model writes the input side: defaults are optional, transforms not yet applied.
    schema = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new DefinitionError('invalid_input_schema', `The input schema of ${name} has no JSON Schema form: ${reason}`);
  }
  const { $schema: _schema, ...rest } = schema;
  const json = toJsonValue(rest);
  if (!json.ok || !isJsonObject(json.value) || json.value.type !== 'object') {
    throw new DefinitionError(
      'invalid_input_schema',
      `The input schema of ${name} must be a z.object(...): tool arguments are a JSON object.`,
    );
  }
  return json.value;
}

function checkExample(name: string, input: z.ZodType, example: unknown, index: number): void {
  const json = toJsonValue(example);
  const parsed = input.safeParse(example);
  if (!json.ok || !isJsonObject(json.value) || !parsed.success) {
    const why = parsed.success
      ? 'it is not a JSON object'
      : summariseIssues(toFieldIssues(parsed.error.issues, example));
    throw new DefinitionError('invalid_example', `Example ${index + 1} of ${name} fails its own input schema: ${why}.`);
  }
}

export type { JsonValue };
