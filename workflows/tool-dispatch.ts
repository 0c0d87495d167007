/**
 * Runs admitted tool calls as activities, one `runTool` activity per call with the tool's own
 * timeouts and retry policy, and a one-line summary for the Temporal UI. A failure that outlives
 * Temporal's retries becomes a ToolResult here: one failed tool never fails the run.
 */
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { AnyTool } from '../shared/define-tool.js';
import { resultAfterRetries } from '../shared/after-retries.js';
import { NON_RETRYABLE_FAILURE_TYPES } from '../shared/failure-type.js';
import { fromError } from '../shared/tool-error.js';
import type { ToolResult } from '../shared/tool-result.js';
import type { ToolCall } from '../shared/tool-call.js';
import type { RunToolInput } from '../shared/run-tool-input.js';
import { isJsonObject } from '../shared/json.js';
import { MAX_SUMMARY_CHARS, oneLine, summaryLine } from './run-details.js';

type ToolActivities = { runTool(input: RunToolInput): Promise<ToolResult> };

const { runTool } = proxyActivities<ToolActivities>({ startToCloseTimeout: '30s' });

/** How long a tool's activity may go without a heartbeat before Temporal counts its worker as gone. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export function activityOptions(tool: AnyTool): ActivityOptions {
  const t = tool.timeouts ?? {};
  const r = tool.retry ?? {};
  return {
    startToCloseTimeout: t.startToCloseMs ?? 30_000,
    ...(t.scheduleToCloseMs ? { scheduleToCloseTimeout: t.scheduleToCloseMs } : {}),
    // The tool activity heartbeats at least every 2 s while the tool runs: a dead worker is noticed in seconds.
    heartbeatTimeout: Math.min(t.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, t.startToCloseMs ?? 30_000),
    retry: {
      // A tool that must happen at most once gets exactly one attempt.
      maximumAttempts: tool.sideEffects === 'once' ? 1 : (r.maximumAttempts ?? 3),
      initialInterval: r.initialIntervalMs ?? 1_000,
      backoffCoefficient: r.backoffCoefficient ?? 2,
      maximumInterval: r.maximumIntervalMs ?? 30_000,
      // What was sent or returned decides these codes: an identical retry would fail identically.
      nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
    },
  };
}

/**
 * `search_orders status=shipped page=2`: the tool and its key arguments, on one line; a `note`
 * (tool-call notes in run-details.ts: a re-run after a back-off, a reviewer's decision) follows
 * after a dash and is kept whole: the arguments give way.
 */
export function callSummary(call: ToolCall, note = ''): string {
  const args = isJsonObject(call.args)
    ? Object.entries(call.args)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .slice(0, 4)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v.slice(0, 40) : String(v)}`)
        .join(' ')
    : '';
  const tail = note ? ` — ${oneLine(note, 80)}` : '';
  return summaryLine(`${oneLine(`${call.name} ${args}`, MAX_SUMMARY_CHARS - tail.length)}${tail}`);
}

/**
 * Runs one call; `activityId` names the activity (see take-step.ts, ACTIVITY_IDS_PATCH) and `note`
 * adds to its summary; a `once` call carries its idempotency key (planner/once-keys.ts).
 */
export async function dispatch(call: ToolCall, tool: AnyTool, { note, ...ids }: { activityId?: string; note?: string } = {}, idempotencyKey?: string): Promise<ToolResult> {
  try {
    return await runTool.executeWithOptions({ ...activityOptions(tool), summary: callSummary(call, note), ...ids }, [
      { name: call.name, toolCallId: call.toolCallId, args: call.args, ...(idempotencyKey && { idempotencyKey }) },
    ]);
  } catch (err) {
    return resultAfterRetries(call, fromError(err), tool.sideEffects);
  }
}
