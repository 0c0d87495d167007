/**
 * Builds the events of a run's live stream (run-stream.ts; their types are the contract's,
 * workflows/contract/run-event.ts). Each is small: large values are cut to a preview, so a subscriber's poll
 * (which enters history) stays cheap. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { RunEvent, RunEventBase } from './contract/run-event.js';

/** The longest value an event carries whole, in characters of JSON; longer ones become a preview. */
export const MAX_EVENT_VALUE_CHARS = 4_000;

/** `value` whole when small, else `{ preview, chars }`. */
export function preview(value: JsonValue | undefined, max = MAX_EVENT_VALUE_CHARS): JsonValue {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text.length <= max ? value : { preview: text.slice(0, max), chars: text.length };
}

export function modelTurnEvent(base: RunEventBase, outcome: ModelOutcome, call?: string): RunEvent {
  const turn = { ...base, type: 'model_turn' as const, ...(call && { call }) };
  if (outcome.status === 'error')
    return { ...turn, error: { code: outcome.error.code, message: outcome.error.message.slice(0, 500) } };
  const response = outcome.response;
  if (!response) return { ...turn, text: '' };
  return {
    ...turn,
    text: response.text.slice(0, 1_000),
    toolCalls: response.toolCalls.slice(0, 64).map((c) => c.name),
    ...(response.usage && { usage: response.usage }),
  };
}

export function toolStartEvent(base: RunEventBase, call: ToolCall): RunEvent {
  return { ...base, type: 'tool_start', toolCallId: call.toolCallId, name: call.name, args: preview(call.args) };
}

/** The ToolResult whole — status, error chain, hint, telemetry, runLink — with its payloads previewed. */
export function toolEndEvent(base: RunEventBase, result: ToolResult, refusedArgs?: JsonValue): RunEvent {
  const view: Record<string, unknown> = { ...result };
  if (result.status === 'ok') view.result = preview(result.result);
  if (result.status === 'error' && result.partialResult !== undefined)
    view.partialResult = preview(result.partialResult);
  return {
    ...base,
    type: 'tool_end',
    toolCallId: result.toolCallId,
    name: result.name,
    result: preview(view as JsonValue, 4 * MAX_EVENT_VALUE_CHARS),
    ...(refusedArgs !== undefined && { args: preview(refusedArgs) }),
  };
}
