/**
 * The tool activity: runs one validated tool call on the worker — `execute`, then the output guard,
 * then the validator post-hooks — and returns a ToolResult. It never throws for a tool-level
 * failure (a thrown ToolFailure becomes an error result); any other throw is a crash, rethrown as a
 * retryable `internal_error` ApplicationFailure so the tool's Temporal retry policy decides.
 * Worker side only. Safe to retry: tools get a stable idempotency key.
 */
import { activityInfo, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AnyTool, ToolContext } from '../shared/define-tool.js';
import { isJsonObject, type JsonValue } from '../shared/json.js';
import type { RetryHint } from '../shared/retry-hint.js';
import type { RunToolInput } from '../shared/run-tool-input.js';
import type { ToolResult, ToolTelemetry } from '../shared/tool-result.js';
import { FAILURES, type ToolErrorCode } from '../shared/failure-taxonomy.js';
import { failureType } from '../shared/failure-type.js';
import { guardOutput } from '../shared/output-guard.js';
import { toJsonValue } from '../shared/json-safe.js';
import { ToolFailure } from '../shared/tool-failure.js';
import { fromError, toolError, type ToolError } from '../shared/tool-error.js';
import { runPostHooks } from '../shared/validator.js';

export interface ToolActivities {
  runTool(input: RunToolInput): Promise<ToolResult>;
}

/** The tool activity for `tools`; `deps` reaches each `execute` as `context.deps`. */
export function createToolActivities(tools: readonly AnyTool[], deps?: unknown): ToolActivities {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    async runTool({ name, toolCallId, args }: RunToolInput): Promise<ToolResult> {
      const started = Date.now();
      const info = activityInfo();
      const telemetry = (): ToolTelemetry => ({ durationMs: Date.now() - started, attempt: info.attempt });
      const base = { name, toolCallId };
      const failed = (error: ToolError, hint?: RetryHint, partialResult?: JsonValue): ToolResult => ({
        ...base,
        status: 'error',
        error,
        ...(hint ? { retryHint: hint } : {}),
        ...(partialResult === undefined ? {} : { partialResult }),
        telemetry: telemetry(),
      });

      const tool = byName.get(name);
      if (!tool) {
        const message = `This worker has no tool named "${name}".`;
        return failed(toolError('unknown_tool', message), { reason: FAILURES.unknown_tool.reason, tool: name, availableTools: [...byName.keys()], message });
      }
      const context: ToolContext = {
        toolCallId,
        // Outside a workflow (a standalone activity) the activity id stands in for the workflow id.
        idempotencyKey: `${info.workflowExecution?.workflowId ?? info.activityId}/${toolCallId}`,
        attempt: info.attempt,
        deps,
        signal: Context.current().cancellationSignal,
      };
      let output: unknown;
      try {
        output = await tool.execute(args, context);
      } catch (err) {
        if (!ToolFailure.isInstance(err)) throw asActivityFailure(err, context.signal);
        const partial = err.partialResult === undefined ? undefined : toJsonValue(err.partialResult);
        const cause = err.cause === undefined ? undefined : fromError(err.cause);
        return failed(toolError(err.code, err.message, cause), failureHint(err, tool, args), partial?.ok ? partial.value : undefined);
      }
      const guarded = guardOutput(tool, output, args);
      if (!guarded.ok) return failed(guarded.error, guarded.hint, guarded.partialResult);
      const hooked = await runPostHooks(tool.postHooks, guarded.value, args);
      if (hooked.status === 'ok') return { ...base, status: 'ok', result: hooked.value, telemetry: telemetry() };
      if (hooked.status === 'validator_failed') return { ...base, ...hooked, telemetry: telemetry() };
      return failed(hooked.error, { reason: FAILURES.post_hook_error.reason, tool: name, priorInput: args });
    },
  };
}

/** The hint of a thrown ToolFailure: its own fields (undefined ones dropped), then what Cairn knows. */
function failureHint(failure: ToolFailure, tool: AnyTool, args: JsonValue): RetryHint {
  const own = toJsonValue(failure.hint ?? {});
  const fields = own.ok && isJsonObject(own.value) ? own.value : {};
  const repair: ToolErrorCode[] = ['invalid_arguments', 'missing_fields', 'semantic_error'];
  const example = repair.includes(failure.code) && tool.examples?.[0] !== undefined ? toJsonValue(tool.examples[0]) : undefined;
  return {
    message: failure.message,
    priorInput: args,
    ...(example?.ok && isJsonObject(example.value) ? { exampleInput: example.value } : {}),
    ...(failure.code === 'invalid_arguments' || failure.code === 'missing_fields' ? { restrictToTool: true } : {}),
    ...(fields as Partial<RetryHint>),
    reason: FAILURES[failure.code].reason,
    tool: tool.name,
  };
}

/**
 * A crash as Temporal should see it. Cancellation and failures the tool typed for Temporal itself
 * pass through untouched; anything else becomes a retryable `internal_error`, with the original
 * error as its cause.
 */
function asActivityFailure(err: unknown, signal: AbortSignal): unknown {
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (signal.aborted || name === 'CancelledFailure' || name === 'ApplicationFailure') return err;
  return ApplicationFailure.create({
    message: fromError(err).message,
    type: failureType('internal_error'),
    nonRetryable: false,
    ...(err instanceof Error ? { cause: err } : {}),
  });
}
