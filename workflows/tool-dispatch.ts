/**
 * Runs admitted tool calls as activities, one `runTool` activity per call with the tool's own
 * timeouts and retry policy, and a one-line summary for the Temporal UI. A failure that outlives
 * Temporal's retries becomes a ToolResult here: one failed tool never fails the run.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  patched,
  proxyActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AnyTool } from '../shared/tools/define-tool.js';
import { resultAfterRetries } from '../shared/failures/after-retries.js';
import { fromError } from '../shared/failures/tool-error.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { RunToolInput, RunToolResult } from '../shared/tools/run-tool-input.js';
import type { WorkspaceCallInput } from '../shared/workspace/workspace-call.js';
import { isJsonObject } from '../shared/json/json.js';
import { ONCE_BEGAN, ONCE_FENCE_PATCH, RUN_ONCE_TOOL } from '../shared/tools/once-fence.js';
import { MAX_SUMMARY_CHARS, oneLine, summaryLine } from './run-details.js';

type ToolActivities = {
  runTool(input: RunToolInput): Promise<RunToolResult>;
  [RUN_ONCE_TOOL](input: RunToolInput): Promise<RunToolResult>;
};

const { runTool, [RUN_ONCE_TOOL]: runOnceTool } = proxyActivities<ToolActivities>({ startToCloseTimeout: '30s' });

/** How long one attempt of a tool may run, by default (`timeouts.startToCloseMs`); also all attempts' bound (`scheduleToCloseMs`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** How long a tool's activity may go without a heartbeat before Temporal counts its worker as gone. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export function activityOptions(tool: AnyTool): ActivityOptions {
  const t = tool.timeouts ?? {};
  const r = tool.retry ?? {};
  const startToClose = t.startToCloseMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return {
    startToCloseTimeout: startToClose,
    // By default one attempt's time bounds them all: Temporal retries a crash within it, but not a
    // hang. A timeout is the planner's to back off and re-run (3 runs a turn by default), so a tool
    // that never returns is a structured `timeout` after ~3 × 30 s, not 3 runs × 3 attempts × 30 s.
    scheduleToCloseTimeout: t.scheduleToCloseMs ?? startToClose,
    // The tool activity heartbeats at least every 2 s while the tool runs: a dead worker is noticed in seconds.
    heartbeatTimeout: Math.min(t.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, startToClose),
    retry: {
      // A tool that must happen at most once gets exactly one attempt.
      maximumAttempts: tool.sideEffects === 'once' ? 1 : (r.maximumAttempts ?? 3),
      initialInterval: r.initialIntervalMs ?? 1_000,
      backoffCoefficient: r.backoffCoefficient ?? 2,
      maximumInterval: r.maximumIntervalMs ?? 30_000,
      // No nonRetryableErrorTypes: the tool activity marks the failures no retry can fix itself
      // (activities/tool-activity.ts), so the list is not written into history with every call.
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
 * Runs one call; `activityId` names the activity (see take-step.ts, `scheduled`) and `note`
 * adds to its summary; a `once` call carries its idempotency key (planner/once-keys.ts) and runs
 * fenced (shared/tools/once-fence.ts), except in runs recorded before the fence; a workspace call
 * carries its snapshot and gets the next one back (`workspace`).
 */
export async function dispatch(
  call: ToolCall,
  tool: AnyTool,
  { note, ...ids }: { activityId?: string; note?: string } = {},
  idempotencyKey?: string,
  workspace?: WorkspaceCallInput,
): Promise<RunToolResult> {
  const fenced = tool.sideEffects === 'once' && patched(ONCE_FENCE_PATCH);
  const activity = fenced ? runOnceTool : runTool;
  try {
    return await activity.executeWithOptions({ ...activityOptions(tool), summary: callSummary(call, note), ...ids }, [
      {
        name: call.name,
        toolCallId: call.toolCallId,
        args: call.args,
        ...(idempotencyKey && { idempotencyKey }),
        ...(workspace && { workspace }),
      },
    ]);
  } catch (err) {
    return resultAfterRetries(call, fromError(err), tool.sideEffects, fenced && neverBegan(err));
  }
}

/**
 * A fenced attempt that ended before `execute` could begin: it timed out without the fence's
 * heartbeat details, or a worker of an earlier release refused the activity type it lacks.
 */
function neverBegan(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) return cause.lastHeartbeatDetails !== ONCE_BEGAN;
  return cause instanceof ApplicationFailure && cause.type === 'NotFoundError' && /not registered/.test(cause.message);
}
