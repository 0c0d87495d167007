/**
 * The activities an evaluation's workers run instead of the real ones: `runTool` serves the
 * case's recording (lane-run.ts) and runs only read-only tools live; `callModel` serves the
 * recorded model turns on the baseline lane; `reconcileTool` and `postRunStatus` touch nothing.
 * A run is found by its workflow id. Node-only.
 */
import { RUN_ONCE_TOOL, TOOL_ACTIVITY_TYPES } from '../../shared/tools/once-fence.js';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { toolError } from '../../shared/failures/tool-error.js';
import { argsHash } from '../../shared/identity/hash.js';
import { isJsonObject, type JsonValue } from '../../shared/json/json.js';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import type { ReconcileReport, ReconcileToolInput } from '../../shared/tools/reconcile.js';
import type { RunToolInput } from '../../shared/tools/run-tool-input.js';
import { errorResult, type ToolResult } from '../../shared/tools/tool-result.js';
import type { ToolActivities } from '../../activities/tool-activity.js';
import type { LaneRun } from './lane-run.js';
import type { ScheduledActivity } from './lane-position.js';

/** The lane runs of an evaluation, by workflow id (lane-run.ts: LaneRegistry). */
export interface LaneRuns {
  get(workflowId: string): LaneRun | undefined;
  /** How many activities `match` accepts the running one's run scheduled before it (lane-position.ts). */
  readonly scheduledBefore?: (match: (activity: ScheduledActivity) => boolean) => Promise<number | undefined>;
}

function laneOf(runs: LaneRuns): LaneRun | undefined {
  return runs.get(activityInfo().workflowExecution?.workflowId ?? '');
}

/**
 * How to read the running activity's place from its run's history, when this process cannot know
 * it: a run an earlier evaluation began, or an attempt after one that failed (it counted). Else
 * undefined: the place kept in memory is the history's, without reading the history each call.
 */
function fromHistory(lane: LaneRun, runs: LaneRuns): LaneRuns['scheduledBefore'] {
  return lane.fromHistory || activityInfo().attempt > 1 ? runs.scheduledBefore : undefined;
}

/** `runTool` over the recordings; `live` runs a read-only tool for real. */
export function recordedToolActivity(runs: LaneRuns, live: Pick<ToolActivities, 'runTool'>): ToolActivities {
  const served = {
    async runTool(input: RunToolInput): Promise<ToolResult> {
      const { name, toolCallId, args } = input;
      const refuse = (why: string): ToolResult =>
        errorResult({ name, toolCallId }, toolError('tool_unavailable', why), { message: why });
      const lane = laneOf(runs);
      if (!lane) return refuse('This evaluation has no recording for this run (a child run of an agent tool?).');
      // The place among repeats of this call, from the run's history when this process may not know it.
      const hash = argsHash(args);
      const occurrence = await fromHistory(
        lane,
        runs,
      )?.(
        (activity) =>
          TOOL_ACTIVITY_TYPES.has(activity.activityType) &&
          isJsonObject(activity.input) &&
          activity.input.name === name &&
          argsHash(activity.input.args ?? null) === hash,
      );
      // Without a place from the history (no server to ask), this object's own count.
      const { served, run } = lane.serve(name, args, occurrence ?? lane.occurrence(name, args));
      lane.served.push(served);
      if (served.how === 'refused') return refuse(served.why);
      if (served.how === 'live') return live.runTool(input);
      return { ...(run!.result as object), toolCallId } as ToolResult;
    },
  };
  // A fenced `once` call (shared/tools/once-fence.ts) is served the same way.
  return { ...served, [RUN_ONCE_TOOL]: served.runTool };
}

/**
 * `callModel` of the baseline lane: the recorded model turns, in order. A run with no recording
 * (a dataset case) calls the agent's own model (`live`). A run that asks for more turns than its
 * recording has fails at once, saying so: the harness did not reproduce the recording.
 */
export function recordedModelActivity(runs: LaneRuns, live: (request: never) => Promise<ModelOutcome>) {
  return {
    async callModel(request: never): Promise<ModelOutcome> {
      const lane = laneOf(runs);
      // A candidate run reaches a baseline worker only when its code is the agent's: it calls its model.
      if (lane ? lane.lane === 'candidate' : isCandidateRun()) return live(request);
      if (lane && !lane.recording) return live(request);
      const turn = lane && (await fromHistory(lane, runs)?.((activity) => activity.activityType === 'callModel'));
      const outcome: JsonValue | undefined = lane?.nextModelTurn(turn);
      if (outcome !== undefined) return outcome as unknown as ModelOutcome;
      const why = lane
        ? `The recording has ${lane.recording?.modelTurns.length ?? 0} model turn(s) and the run asked for one more: the baseline did not reproduce it.`
        : 'This evaluation has no recording for this run.';
      lane?.drift.push(why);
      throw ApplicationFailure.nonRetryable(why, 'eval_recording_exhausted');
    },
  };
}

/** A candidate lane run (or a child of one) by its workflow id (run-eval.ts names them), for a run this process has not registered. */
function isCandidateRun(): boolean {
  return (activityInfo().workflowExecution?.workflowId ?? '').startsWith('cairn-eval-candidate-');
}

/** Nothing is reconciled or pushed from an evaluation. */
export const inertActivities = {
  async reconcileTool({ toolCallId }: ReconcileToolInput): Promise<ReconcileReport> {
    return { toolCallId, unknown: 'an evaluation never asks a tool whether a call took effect' };
  },
  async postRunStatus(): Promise<void> {},
};
