/**
 * Runs admitted tool calls as activities, one `runTool` activity per call with the tool's own
 * timeouts and retry policy, and a one-line summary for the Temporal UI. A failure that outlives
 * Temporal's retries becomes a ToolResult here: one failed tool never fails the run.
 */
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { AnyTool } from '../shared/define-tool.js';
import { errorChain, fromError, toolError } from '../shared/tool-error.js';
import { NO_TELEMETRY, type ToolResult } from '../shared/tool-result.js';
import type { ToolCall } from '../shared/tool-call.js';
import type { RunToolInput } from '../shared/run-tool-input.js';
import { isJsonObject } from '../shared/json.js';
import { FAILURES, type ToolErrorCode } from '../shared/failure-taxonomy.js';

type ToolActivities = { runTool(input: RunToolInput): Promise<ToolResult> };

const { runTool } = proxyActivities<ToolActivities>({ startToCloseTimeout: '30s' });

export function activityOptions(tool: AnyTool): ActivityOptions {
  const t = tool.timeouts ?? {};
  const r = tool.retry ?? {};
  return {
    startToCloseTimeout: t.startToCloseMs ?? 30_000,
    ...(t.scheduleToCloseMs ? { scheduleToCloseTimeout: t.scheduleToCloseMs } : {}),
    ...(t.heartbeatMs ? { heartbeatTimeout: t.heartbeatMs } : {}),
    retry: {
      // A tool that must happen at most once gets exactly one attempt.
      maximumAttempts: tool.sideEffects === 'once' ? 1 : (r.maximumAttempts ?? 3),
      initialInterval: r.initialIntervalMs ?? 1_000,
      backoffCoefficient: r.backoffCoefficient ?? 2,
      maximumInterval: r.maximumIntervalMs ?? 30_000,
    },
  };
}

/** `search_orders status=shipped page=2`: the tool and its key arguments, on one line. */
export function callSummary(call: ToolCall): string {
  const args = isJsonObject(call.args)
    ? Object.entries(call.args)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .slice(0, 4)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v.slice(0, 40) : String(v)}`)
        .join(' ')
    : '';
  return `${call.name} ${args}`.trim().slice(0, 200);
}

export async function dispatch(call: ToolCall, tool: AnyTool): Promise<ToolResult> {
  try {
    return await runTool.executeWithOptions({ ...activityOptions(tool), summary: callSummary(call) }, [
      { name: call.name, toolCallId: call.toolCallId, args: call.args },
    ]);
  } catch (err) {
    // Retries are exhausted: a timeout stays a timeout; a tool that kept crashing is unavailable.
    const cause = fromError(err);
    const timedOut = errorChain(cause).some((link) => link.code === 'timeout');
    const code: ToolErrorCode = timedOut ? 'timeout' : 'tool_unavailable';
    const message = timedOut
      ? `${call.name} timed out, after Temporal's retries.`
      : `${call.name} kept failing and is unavailable, after Temporal's retries.`;
    return {
      status: 'error',
      name: call.name,
      toolCallId: call.toolCallId,
      error: toolError(code, message, cause),
      retryHint: { reason: FAILURES[code].reason, tool: call.name, message },
      telemetry: NO_TELEMETRY,
    };
  }
}
