/**
 * The events of a run's live stream (run-stream.ts), one per thing that happened: the run
 * starting, each model turn (with usage), each tool call starting and ending (the ToolResult,
 * error chain and hint included), each planner decision, a question, a review, what a person
 * sent, a hand-over, the finish. Each is small: large values are cut to a preview, so a
 * subscriber's poll (which enters history) stays cheap. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { PendingClarification, PendingReview, StepAction } from '../planner/index.js';
import type { ChildLink } from './messages.js';

/** The longest value an event carries whole, in characters of JSON; longer ones become a preview. */
export const MAX_EVENT_VALUE_CHARS = 4_000;

interface Base {
  /** Workflow time, ms since the epoch. */
  readonly at: number;
  /** Model turns so far. */
  readonly turn: number;
}

export type RunEvent =
  | (Base & { readonly type: 'run_started'; readonly agent: string; readonly prompt: string })
  | (Base & {
      readonly type: 'model_turn';
      /** The model call (its activity id, e.g. `model:3:1`), as its live deltas name it; absent in runs that let Temporal number activities. */
      readonly call?: string;
      readonly text?: string;
      readonly toolCalls?: readonly string[];
      readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
      readonly error?: { readonly code: string; readonly message: string };
    })
  | (Base & { readonly type: 'tool_start'; readonly toolCallId: string; readonly name: string; readonly args: JsonValue })
  | (Base & {
      readonly type: 'tool_end';
      readonly toolCallId: string;
      readonly name: string;
      readonly result: JsonValue;
      /** A call refused at the boundary (it never started): the arguments the model sent, previewed. */
      readonly args?: JsonValue;
    })
  | (Base & { readonly type: 'decision'; readonly seq: number; readonly action: StepAction; readonly detail: string })
  | (Base & { readonly type: 'question'; readonly clarification: PendingClarification; readonly child?: ChildLink })
  | (Base & { readonly type: 'review'; readonly reviews: readonly PendingReview[]; readonly child?: ChildLink })
  | (Base & { readonly type: 'human'; readonly kind: HumanKind; readonly id: string; readonly detail: JsonValue })
  | (Base & { readonly type: 'hand_over'; readonly generation: number })
  | (Base & { readonly type: 'finish'; readonly answer: string; readonly reason: string | null; readonly toolCalls: number });

export type RunEventType = RunEvent['type'];

/** What a person sent a run. */
export type HumanKind = 'answer' | 'review' | 'pause' | 'resume' | 'cancel' | 'message';

/** `value` whole when small, else `{ preview, chars }`. */
export function preview(value: JsonValue | undefined, max = MAX_EVENT_VALUE_CHARS): JsonValue {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text.length <= max ? value : { preview: text.slice(0, max), chars: text.length };
}

export function modelTurnEvent(base: Base, outcome: ModelOutcome, call?: string): RunEvent {
  const turn = { ...base, type: 'model_turn' as const, ...(call && { call }) };
  if (outcome.status === 'error') return { ...turn, error: { code: outcome.error.code, message: outcome.error.message.slice(0, 500) } };
  const response = outcome.response;
  if (!response) return { ...turn, text: '' };
  return {
    ...turn,
    text: response.text.slice(0, 1_000),
    toolCalls: response.toolCalls.slice(0, 64).map((c) => c.name),
    ...(response.usage && { usage: response.usage }),
  };
}

export function toolStartEvent(base: Base, call: ToolCall): RunEvent {
  return { ...base, type: 'tool_start', toolCallId: call.toolCallId, name: call.name, args: preview(call.args) };
}

/** The ToolResult whole — status, error chain, hint, telemetry, runLink — with its payloads previewed. */
export function toolEndEvent(base: Base, result: ToolResult, refusedArgs?: JsonValue): RunEvent {
  const view: Record<string, unknown> = { ...result };
  if (result.status === 'ok') view.result = preview(result.result);
  if (result.status === 'error' && result.partialResult !== undefined) view.partialResult = preview(result.partialResult);
  return {
    ...base,
    type: 'tool_end',
    toolCallId: result.toolCallId,
    name: result.name,
    result: preview(view as JsonValue, 4 * MAX_EVENT_VALUE_CHARS),
    ...(refusedArgs !== undefined && { args: preview(refusedArgs) }),
  };
}
