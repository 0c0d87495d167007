/**
 * The tool activity: runs one validated tool call on the worker — `execute`, then the output guard,
 * then the validator post-hooks — and returns a ToolResult bounded in size (docs/size-limits.md).
 * It never throws for a tool-level failure (a thrown ToolFailure becomes an error result); any
 * other throw is a crash, rethrown as a retryable `internal_error` ApplicationFailure so the tool's
 * Temporal retry policy decides; a cancelled call is rethrown as Temporal's CancelledFailure. It
 * heartbeats while the tool runs, so a dead worker is noticed at the heartbeat timeout and a
 * cancel reaches the tool. Worker side only. Safe to retry: tools get a stable idempotency key.
 */
import { trace, type Attributes } from '@opentelemetry/api';
import { activityInfo, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AnyTool, ToolContext } from '../shared/tools/define-tool.js';
import { isJsonObject, type JsonValue } from '../shared/json/json.js';
import type { PayloadStore } from '../shared/tools/payload-store.js';
import type { RetryHint } from '../shared/failures/retry-hint.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import {
  errorResult,
  failureCode,
  failureReason,
  type ToolResult,
  type ToolTelemetry,
} from '../shared/tools/tool-result.js';
import type { ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import { NON_RETRYABLE_FAILURE_TYPES, failureType } from '../shared/failures/failure-type.js';
import { guardOutput } from '../shared/guards/output-guard.js';
import { toJsonValue } from '../shared/json/json-safe.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { fromError, toolError, type ToolError } from '../shared/failures/tool-error.js';
import { runPostHooks } from '../shared/guards/validator.js';
import { boundToolResult, isOversize, resultLimit, type StoredResult } from '../shared/tools/tool-result-size.js';
import { cancellation, withHeartbeats } from './heartbeat.js';
import { attemptFence } from './attempt-fence.js';
import { ONCE_BEGAN, RUN_ONCE_TOOL } from '../shared/tools/once-fence.js';
import type { RunToolResult } from '../shared/tools/run-tool-input.js';
import { closeWorkspace, workspaceOf, type WorkspaceRuntime } from './workspace/workspace-runtime.js';
import type { Checkout } from './workspace/workspace-checkouts.js';

export interface ToolActivities {
  runTool(input: RunToolInput): Promise<RunToolResult>;
  /** A `once` call behind the fence (shared/tools/once-fence.ts): same input and result. */
  [RUN_ONCE_TOOL](input: RunToolInput): Promise<RunToolResult>;
}

/** How the worker bounds and offloads tool results, and how often tools heartbeat. */
export interface ToolActivityOptions {
  /** Result limit for tools that set no `maxResultBytes` (default 256 KiB; at most 1.5 MiB). */
  readonly maxResultBytes?: number;
  /**
   * Where oversize results are stored whole, for the `read_result` tool; without a store they
   * keep what fits. Every worker that may run `read_result` must reach the same store.
   */
  readonly payloadStore?: PayloadStore;
  /** How often a running tool heartbeats, in ms (default 1,000; the SDK throttles what it sends). */
  readonly heartbeatMs?: number;
  /** Tools that are not in `tools`, by name: the worker's MCP tools (activities/mcp-connections.ts). */
  readonly findTool?: (name: string) => Promise<AnyTool | undefined>;
  /** Working copies and the sandbox for workspace tools (activities/workspace/); without it they fail `tool_unavailable`. */
  readonly workspaces?: WorkspaceRuntime;
}

/** The tool activities for `tools`; `deps` reaches each `execute` as `context.deps`. */
export function createToolActivities(
  tools: readonly AnyTool[],
  deps?: unknown,
  options: ToolActivityOptions = {},
): ToolActivities {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const store = options.payloadStore;
  const run = async (
    { name, toolCallId, args, idempotencyKey, workspace }: RunToolInput,
    fenced: boolean,
  ): Promise<RunToolResult> => {
    const started = Date.now();
    const info = activityInfo();
    const telemetry = (): ToolTelemetry => ({ durationMs: Date.now() - started, attempt: info.attempt });
    const base = { name, toolCallId };
    const failed = (error: ToolError, hint: Partial<RetryHint>, partialResult?: JsonValue): ToolResult =>
      errorResult(base, error, hint, { partialResult, telemetry: telemetry() });

    const tool = byName.get(name) ?? (await options.findTool?.(name));
    if (!tool) {
      const message = `This worker has no tool named "${name}".`;
      return failed(toolError('unknown_tool', message), { availableTools: [...byName.keys()], message });
    }
    const workflowId = info.workflowExecution?.workflowId ?? info.activityId;
    const fence = attemptFence();
    let checkout: Checkout | undefined;
    if (tool.workspace && workspace) {
      if (!options.workspaces) {
        const message = `This worker serves no workspaces, so ${name} cannot run here.`;
        return failed(toolError('tool_unavailable', message), { message });
      }
      try {
        // A store that lost a snapshot's files, a full disk: a crash Temporal retries, never a wrong workspace.
        // Heartbeating: a cold restore of a large workspace on a busy worker outlasts the heartbeat timeout.
        const { checkouts } = options.workspaces;
        checkout = await withHeartbeats(() => checkouts.checkout(workspace), options.heartbeatMs);
      } catch (err) {
        throw asActivityFailure(err, fence.signal);
      }
    }
    const context: ToolContext = {
      toolCallId,
      // The workflow's key when it sent one; else the key runs in flight were started with.
      // Outside a workflow (a standalone activity) the activity id stands in for the workflow id.
      idempotencyKey:
        typeof idempotencyKey === 'string' && idempotencyKey !== '' ? idempotencyKey : `${workflowId}/${toolCallId}`,
      attempt: info.attempt,
      deps,
      signal: fence.signal,
      // Inside a fenced call a tool's own confirm keeps the mark (a bare heartbeat would erase it).
      confirmAttempt: () => fence.confirmAttempt(fenced ? ONCE_BEGAN : undefined),
      ...(store ? { payloads: store } : {}),
      ...(checkout && {
        workspace: workspaceOf(checkout, workspace!, options.workspaces!.driver, fence.signal),
      }),
    };
    let result: ToolResult;
    try {
      const guarded = () => runGuarded(tool, args, context, failed, telemetry);
      if (fenced) {
        // No heartbeat before the server has acknowledged ONCE_BEGAN: a late one without it
        // would erase the mark. From here on every heartbeat carries it.
        await fence.confirmAttempt(ONCE_BEGAN);
        result = await withHeartbeats(guarded, options.heartbeatMs, ONCE_BEGAN);
      } else if (tool.sideEffects === 'once') {
        // A `once` call of a run recorded before the fence: its effect runs only while this
        // attempt is still the server's current one (a worker that wakes late stops here).
        result = await withHeartbeats(() => fence.confirmAttempt().then(guarded), options.heartbeatMs);
      } else {
        result = await withHeartbeats(guarded, options.heartbeatMs);
      }
    } catch (err) {
      await checkout?.discard().catch(() => {});
      throw asActivityFailure(err, context.signal);
    }
    let after: { workspace: string } | undefined;
    if (checkout) {
      try {
        const ok = result.status === 'ok';
        after = { workspace: await withHeartbeats(() => closeWorkspace(checkout!, ok), options.heartbeatMs) };
      } catch (err) {
        if (!ToolFailure.isInstance(err)) throw asActivityFailure(err, context.signal);
        result = failed(toolError(err.code, err.message), { message: err.message, ...err.hint });
        after = { workspace: checkout.digest };
      }
    }
    const limit = resultLimit(tool.maxResultBytes, options.maxResultBytes);
    if (result.status !== 'ok' || !isOversize(result, limit)) return { ...boundToolResult(result, limit), ...after };
    const stored = store ? await offload(store, result.result, { workflowId, toolCallId, tool: name }) : undefined;
    return { ...boundToolResult(result, limit, stored), ...after };
  };
  // The RunActivity span when the worker traces (docs/tracing.md); no-ops otherwise.
  const traced = async (input: RunToolInput, fenced: boolean): Promise<RunToolResult> => {
    const span = trace.getActiveSpan();
    span?.setAttributes({ 'cairn.tool': input.name, 'cairn.tool_call_id': input.toolCallId });
    const result = await run(input, fenced);
    span?.setAttributes(toolSpanAttributes(result));
    return result;
  };
  return {
    runTool: (input) => traced(input, false),
    [RUN_ONCE_TOOL]: (input) => traced(input, true),
  };
}

/** What a tool call came to, as span attributes. */
function toolSpanAttributes(result: ToolResult): Attributes {
  const code = failureCode(result);
  const reason = failureReason(result);
  const retryAfterMs = result.status === 'error' ? result.retryHint?.retryAfterMs : undefined;
  return {
    'cairn.result.status': result.status,
    ...(code && { 'cairn.failure.code': code }),
    ...(reason && { 'cairn.retry.reason': reason }),
    ...(retryAfterMs !== undefined && { 'cairn.retry.after_ms': retryAfterMs }),
  };
}

export type Failed = (error: ToolError, hint: Partial<RetryHint>, partialResult?: JsonValue) => ToolResult;

/**
 * `execute` (or `body`, what stands in for it: a reconciled result), the output guard and the
 * post-hooks; throws only for a crash.
 */
export async function runGuarded(
  tool: AnyTool,
  args: JsonValue,
  context: ToolContext,
  failed: Failed,
  telemetry: () => ToolTelemetry,
  body: () => unknown = () => tool.execute(args, context),
): Promise<ToolResult> {
  const base = { name: tool.name, toolCallId: context.toolCallId };
  let output: unknown;
  try {
    output = await body();
  } catch (err) {
    if (!ToolFailure.isInstance(err)) throw err;
    const partial = err.partialResult === undefined ? undefined : toJsonValue(err.partialResult);
    const cause = err.cause === undefined ? undefined : fromError(err.cause);
    return failed(
      toolError(err.code, err.message, cause),
      failureHint(err, tool, args),
      partial?.ok ? partial.value : undefined,
    );
  }
  const guarded = guardOutput(tool, output, args);
  const shadow = guarded.shadow === undefined ? {} : { shadow: guarded.shadow };
  if (!guarded.ok) return { ...failed(guarded.error, guarded.hint, guarded.partialResult), ...shadow };
  const hooked = await runPostHooks(tool.postHooks, guarded.value, args);
  if (hooked.status === 'ok') return { ...base, status: 'ok', result: hooked.value, telemetry: telemetry(), ...shadow };
  if (hooked.status === 'validator_failed') return { ...base, ...hooked, telemetry: telemetry(), ...shadow };
  return { ...failed(hooked.error, { priorInput: args }), ...shadow };
}

/** Writes the whole result to the store; a store that fails leaves the result cut, not lost. */
async function offload(
  store: PayloadStore,
  value: JsonValue,
  info: { workflowId: string; toolCallId: string; tool: string },
): Promise<StoredResult | undefined> {
  try {
    const text = JSON.stringify(value);
    return { ref: await store.put(text, info), chars: text.length };
  } catch (err) {
    Context.current().log.warn('Could not offload an oversize tool result; keeping what fits', {
      tool: info.tool,
      error: fromError(err).message,
    });
    return undefined;
  }
}

/** The hint of a thrown ToolFailure: what Cairn knows, then its own fields (undefined ones dropped). */
function failureHint(failure: ToolFailure, tool: AnyTool, args: JsonValue): Partial<RetryHint> {
  const own = toJsonValue(failure.hint ?? {});
  const fields = own.ok && isJsonObject(own.value) ? own.value : {};
  const repair: ToolErrorCode[] = ['invalid_arguments', 'missing_fields', 'semantic_error'];
  const example =
    repair.includes(failure.code) && tool.examples?.[0] !== undefined ? toJsonValue(tool.examples[0]) : undefined;
  return {
    message: failure.message,
    priorInput: args,
    ...(example?.ok && isJsonObject(example.value) ? { exampleInput: example.value } : {}),
    ...(failure.code === 'invalid_arguments' || failure.code === 'missing_fields' ? { restrictToTool: true } : {}),
    ...(fields as Partial<RetryHint>),
  };
}

/**
 * A crash as Temporal should see it. A cancelled activity throws Temporal's CancelledFailure,
 * whatever the tool threw on its way out, so the call is recorded as cancelled and disables
 * nothing; failures the tool typed for Temporal itself pass through, marked non-retryable when
 * their type is a Cairn code no retry can fix (NON_RETRYABLE_FAILURE_TYPES: said here rather than
 * in every tool activity's retry policy, where the list cost ~330 bytes of history per call);
 * anything else becomes a retryable `internal_error`, with the original error as its cause.
 */
function asActivityFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return cancellation(signal);
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (name === 'ApplicationFailure') return nonRetryableWhenCairnSaysSo(err as ApplicationFailure);
  if (name === 'CancelledFailure') return err;
  return ApplicationFailure.create({
    message: fromError(err).message,
    type: failureType('internal_error'),
    nonRetryable: false,
    ...(err instanceof Error ? { cause: err } : {}),
  });
}

function nonRetryableWhenCairnSaysSo(failure: ApplicationFailure): ApplicationFailure {
  if (failure.nonRetryable || !failure.type || !NON_RETRYABLE_FAILURE_TYPES.includes(failure.type)) return failure;
  const copy = new ApplicationFailure(
    failure.message,
    failure.type,
    true,
    failure.details,
    failure.cause,
    failure.nextRetryDelay,
    failure.category,
  );
  copy.stack = failure.stack;
  return copy;
}
