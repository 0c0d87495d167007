/**
 * The run's live event stream as clients read it: the Workflow Streams protocol of Temporal's
 * `@temporalio/workflow-streams` (the `__temporal_workflow_stream_poll` long-poll Update, the
 * `__temporal_workflow_stream_offset` Query, items as base64 JSON Payloads), Cairn's read Query,
 * and the publish Signal and Update activities send a model's live deltas with. Part of the run's
 * contract (workflows/contract/index.ts): workflow-safe; workflows/run-stream.ts installs the handlers.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { STREAM_PUBLISH_SIGNAL, STREAM_PUBLISH_UPDATE, type PublishInput } from '../../shared/live/model-delta.js';

/** One item as the protocol sends it. */
export interface StreamWireItem {
  readonly topic: string;
  /** Base64 of a serialized JSON Payload (shared/stream-wire.ts). */
  readonly data: string;
  readonly offset: number;
}

export interface StreamPollInput {
  /** Topics to read; empty for all. */
  readonly topics: readonly string[];
  /** The first offset wanted; 0 means from the oldest kept. */
  readonly from_offset: number;
}

export interface StreamPollResult {
  readonly items: readonly StreamWireItem[];
  readonly next_offset: number;
  /** The answer was cut to stay small: poll again at once. */
  readonly more_ready: boolean;
}

/**
 * The stream as the run completed (its result's `stream`): the newest events that fit, offsets as
 * given, and the offset after the last. History keeps it, so a reader needs no worker to replay the run.
 */
export interface FinalStream {
  readonly log: readonly StreamWireItem[];
  readonly next_offset: number;
}

/** What a run hands to its continuation, in the protocol's own state shape. */
export interface StreamState {
  readonly log: readonly StreamWireItem[];
  readonly base_offset: number;
  readonly publisher_sequences: Record<string, number>;
  readonly publisher_last_seen: Record<string, number>;
  /** The offset the next event gets, when the log ends in a gap (dropped deltas). */
  readonly next_offset?: number;
}

export const streamPollUpdate = defineUpdate<StreamPollResult, [StreamPollInput]>('__temporal_workflow_stream_poll');
export const streamOffsetQuery = defineQuery<number>('__temporal_workflow_stream_offset');
/** Cairn's own addition: the same read without waiting, as a Query, so a finished run can still be read. */
export const streamReadQuery = defineQuery<StreamPollResult, [StreamPollInput]>('cairnStreamRead');
export const streamPublishSignal = defineSignal<[PublishInput]>(STREAM_PUBLISH_SIGNAL);
/** Cairn's durable transport publishes by Update: not capped like Signals, and refusable. */
export const streamPublishUpdate = defineUpdate<void, [PublishInput]>(STREAM_PUBLISH_UPDATE);
