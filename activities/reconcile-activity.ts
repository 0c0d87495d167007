/**
 * The reconcile activity: asks a `once` tool whether the effect under an idempotency key happened
 * (the tool's `reconcile`, against the system it acts on), after an attempt whose outcome is
 * unknown. What happened comes back as `execute`'s output would have: through the output guard
 * and the post-hooks, bounded in size. A reconcile that throws is retried by Temporal (it only
 * reads); one that answers something else than the three outcomes counts as unknown. Worker side.
 */
import { activityInfo } from '@temporalio/activity';
import type { AnyTool, ToolContext } from '../shared/tools/define-tool.js';
import type { ReconcileOutcome, ReconcileReport, ReconcileToolInput } from '../shared/tools/reconcile.js';
import { errorResult, type ToolTelemetry } from '../shared/tools/tool-result.js';
import { boundToolResult, resultLimit } from '../shared/tools/tool-result-size.js';
import { attemptFence } from './attempt-fence.js';
import { withHeartbeats } from './heartbeat.js';
import { runGuarded, type Failed, type ToolActivityOptions } from './tool-activity.js';

export interface ReconcileActivities {
  reconcileTool(input: ReconcileToolInput): Promise<ReconcileReport>;
}

/** The reconcile activity for `tools` (and the worker's MCP tools, which never reconcile); `deps` as for `runTool`. */
export function createReconcileActivities(
  tools: readonly AnyTool[],
  deps?: unknown,
  options: ToolActivityOptions = {},
): ReconcileActivities {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    async reconcileTool({ name, toolCallId, args, idempotencyKey }: ReconcileToolInput): Promise<ReconcileReport> {
      const tool = byName.get(name) ?? (await options.findTool?.(name));
      if (!tool?.reconcile) return { toolCallId, unknown: `this worker has no reconcile for ${name}` };
      const started = Date.now();
      const info = activityInfo();
      const context: ToolContext = {
        toolCallId,
        idempotencyKey,
        attempt: info.attempt,
        deps,
        ...attemptFence(),
        ...(options.payloadStore && { payloads: options.payloadStore }),
      };
      const outcome: unknown = await withHeartbeats(
        () => tool.reconcile!({ idempotencyKey, args }, context),
        options.heartbeatMs,
      );
      if (!isOutcome(outcome))
        return { toolCallId, unknown: `${name}'s reconcile answered neither { happened } nor { unknown }` };
      if ('unknown' in outcome) return { toolCallId, unknown: String(outcome.unknown) };
      if (!outcome.happened) return { toolCallId, happened: false };
      const telemetry = (): ToolTelemetry => ({ durationMs: Date.now() - started, attempt: info.attempt });
      const failed: Failed = (error, hint, partialResult) =>
        errorResult({ name, toolCallId }, error, hint, { partialResult, telemetry: telemetry() });
      const result = await runGuarded(tool, args, context, failed, telemetry, () => outcome.result);
      return {
        toolCallId,
        happened: true,
        result: boundToolResult(result, resultLimit(tool.maxResultBytes, options.maxResultBytes)),
      };
    },
  };
}

function isOutcome(value: unknown): value is ReconcileOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.unknown === 'string' || v.happened === false || (v.happened === true && 'result' in v);
}
