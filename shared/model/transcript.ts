/**
 * The conversation as the model sees it. Kept in workflow memory and read by the model activity
 * through a Query; only each turn's *new* messages enter history. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import type { ToolCall } from '../tools/tool-call.js';

export type TranscriptMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly ToolCall[] }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly providerCallId?: string;
      readonly name: string;
      /** What the model sees: the result, or Cairn's concise failure JSON (see model-view.ts). */
      readonly content: JsonValue;
    };

/**
 * Query input: messages `from` (default 0) up to index `length` (exclusive; default all), at most
 * `maxChars` characters of JSON (at least one message), so one answer stays far below Temporal's
 * payload limit however long the transcript. A reader pages until it has `length` messages.
 */
export interface TranscriptSlice {
  readonly from?: number;
  readonly length?: number;
  readonly maxChars?: number;
}

/**
 * The model activity's failure type when the transcript it read is not what the run sent (its
 * digest differs): the run hands it over again and asks again.
 */
export const TRANSCRIPT_UNAVAILABLE = 'TranscriptUnavailable';

/** The name of the run's transcript Query, for worker-side code that must not import workflows/. */
export const TRANSCRIPT_QUERY = 'transcript';

/**
 * The sink (`proxySinks`) a run hands the messages it appends to, so a model activity on the
 * same worker reads them without a Query: `append(epoch, from, messages)`, `from` the index of
 * the first. Its worker side is the model activity's transcript reader; a worker without it
 * (another worker, a replay) reads through the Query as before.
 */
export const TRANSCRIPT_SINK = 'cairnTranscript';

/** The transcript sink's shape, for `proxySinks` and `WorkerOptions.sinks`. */
export type TranscriptSinkCalls = {
  append(epoch: number, from: number, messages: readonly TranscriptMessage[]): void;
};
