/**
 * A recorded run, read from its history: what started it, every model turn's outcome, every tool
 * call with its argument hash and result, every answer and review decision people gave, the
 * back-offs and how it ended. `cairn eval` serves a case's tools and people from it, and compares
 * runs by it (decision-trace.ts). Input is the history's events with payloads already decoded
 * (runtime/eval/history-events.ts). Pure, deterministic.
 */
import { argsHash } from '../identity/hash.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { TOOL_ACTIVITY_TYPES } from '../tools/once-fence.js';

/** A history event, reduced to what an evaluation reads, payloads decoded. */
export type EvalEvent =
  | { readonly type: 'started'; readonly workflowType: string; readonly input: JsonValue; readonly time: number }
  | {
      readonly type: 'activity_scheduled';
      readonly id: number;
      readonly activityType: string;
      readonly input: JsonValue;
    }
  | { readonly type: 'activity_completed'; readonly scheduledId: number; readonly result: JsonValue }
  | { readonly type: 'timer_started' }
  | { readonly type: 'update_accepted'; readonly name: string; readonly args: JsonValue }
  | { readonly type: 'signaled'; readonly name: string; readonly args: JsonValue }
  | {
      readonly type: 'closed';
      readonly status: 'completed' | 'failed' | 'canceled' | 'terminated' | 'timed_out' | 'continued_as_new';
      readonly result?: JsonValue;
      readonly failure?: string;
      readonly time: number;
    };

export interface RecordedModelTurn {
  /** The outcome as the model activity returned it (ModelOutcome). */
  readonly outcome: JsonValue;
  readonly toolChoice: JsonValue;
  readonly toolNames: readonly string[];
}

export interface RecordedToolRun {
  readonly name: string;
  readonly toolCallId: string;
  readonly args: JsonValue;
  readonly argsHash: string;
  /** The ToolResult the tool activity returned. */
  readonly result: JsonValue;
}

export interface RecordedReview {
  readonly toolCallId: string;
  readonly argsHash: string;
  /** The tool the call was to, from the model turn that made it. */
  readonly name?: string;
  readonly decision: JsonValue;
}

export interface RecordedAnswer {
  readonly id: string;
  readonly answer: JsonValue;
}

export interface RecordedBudget {
  readonly id: string;
  /** `{ type: 'extend', tokens?, costUsd? }` or `{ type: 'stop', reason? }`. */
  readonly decision: JsonValue;
}

export interface Recording {
  readonly agent: string;
  readonly prompt: string;
  /** The run input as it was started (model, policy, tenant…). */
  readonly input: JsonObject;
  readonly modelTurns: readonly RecordedModelTurn[];
  readonly toolRuns: readonly RecordedToolRun[];
  readonly answers: readonly RecordedAnswer[];
  readonly reviews: readonly RecordedReview[];
  /** Budget requests decided by a person, in order. */
  readonly budgets: readonly RecordedBudget[];
  readonly backOffs: number;
  /** How the run closed: its status, its result (AgentRunResult) or failure message. */
  readonly end: { readonly status: string; readonly result?: JsonObject; readonly failure?: string };
  readonly durationMs: number;
}

/** A history that is not a recorded agent run: why, in a sentence. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    readonly code: 'not_an_agent_run' | 'still_running' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

const UPDATE_OR_SIGNAL = new Set(['answerClarification', 'reviewToolCall', 'extendBudget']);

/** The recording in `events`. Throws RecordingError for a history that is not a closed agent run. */
export function recordingOf(events: readonly EvalEvent[]): Recording {
  const started = events[0];
  if (started?.type !== 'started')
    throw new RecordingError('not_an_agent_run', 'This history does not start with a workflow start.');
  // Any workflow type: defineAgentRun may be exported under another name.
  const input = started.input;
  if (!isJsonObject(input) || typeof input.agent !== 'string' || typeof input.prompt !== 'string')
    throw new RecordingError(
      'not_an_agent_run',
      `This history is not an agent run: its workflow ("${started.workflowType}") was started without an agent and a prompt.`,
    );
  const scheduled = new Map<number, Extract<EvalEvent, { type: 'activity_scheduled' }>>();
  const modelTurns: RecordedModelTurn[] = [];
  const toolRuns: RecordedToolRun[] = [];
  const answers: RecordedAnswer[] = [];
  const reviews: RecordedReview[] = [];
  const budgets: RecordedBudget[] = [];
  // Tool call ids (`2.1`: turn 2, first call) → the tool, from the model turns that made them.
  const callTools = new Map<string, string>();
  let backOffs = 0;
  let end: Recording['end'] | undefined;
  let closedAt = started.time;
  for (const event of events) {
    switch (event.type) {
      case 'activity_scheduled':
        scheduled.set(event.id, event);
        break;
      case 'activity_completed': {
        const activity = scheduled.get(event.scheduledId);
        if (!activity || !isJsonObject(activity.input)) break;
        if (activity.activityType === 'callModel') {
          const turn = modelTurns.length + 1;
          const toolCalls =
            isJsonObject(event.result) && isJsonObject(event.result.response) ? event.result.response.toolCalls : [];
          if (Array.isArray(toolCalls))
            toolCalls.forEach((call, i) => {
              if (isJsonObject(call) && typeof call.name === 'string') callTools.set(`${turn}.${i + 1}`, call.name);
            });
          modelTurns.push({
            outcome: event.result,
            toolChoice: activity.input.toolChoice ?? 'auto',
            toolNames: Array.isArray(activity.input.toolNames)
              ? activity.input.toolNames.filter((name): name is string => typeof name === 'string')
              : [],
          });
        } else if (TOOL_ACTIVITY_TYPES.has(activity.activityType)) {
          const { name, toolCallId, args = null } = activity.input;
          if (typeof name === 'string' && typeof toolCallId === 'string')
            toolRuns.push({ name, toolCallId, args, argsHash: argsHash(args), result: event.result });
        }
        break;
      }
      case 'timer_started':
        backOffs++;
        break;
      case 'update_accepted':
      case 'signaled': {
        if (!UPDATE_OR_SIGNAL.has(event.name)) break;
        const args = event.args;
        if (!isJsonObject(args)) break;
        if (event.name === 'answerClarification' && typeof args.id === 'string' && args.answer !== undefined)
          answers.push({ id: args.id, answer: args.answer });
        if (event.name === 'extendBudget' && typeof args.id === 'string' && args.decision !== undefined)
          budgets.push({ id: args.id, decision: args.decision });
        if (
          event.name === 'reviewToolCall' &&
          typeof args.toolCallId === 'string' &&
          typeof args.argsHash === 'string'
        ) {
          const name = callTools.get(args.toolCallId);
          reviews.push({
            toolCallId: args.toolCallId,
            argsHash: args.argsHash,
            decision: args.decision ?? null,
            ...(name !== undefined && { name }),
          });
        }
        break;
      }
      case 'closed':
        closedAt = event.time;
        end = {
          status: event.status,
          ...(isJsonObject(event.result) && { result: event.result }),
          ...(event.failure !== undefined && { failure: event.failure }),
        };
        break;
      case 'started':
        break;
    }
  }
  if (!end) throw new RecordingError('still_running', 'This run has not closed yet: only closed runs are cases.');
  return {
    agent: input.agent,
    prompt: input.prompt,
    input,
    modelTurns,
    toolRuns,
    answers,
    reviews,
    budgets,
    backOffs,
    end,
    durationMs: Math.max(0, closedAt - started.time),
  };
}
