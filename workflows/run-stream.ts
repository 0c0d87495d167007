/**
 * The run's live event stream (seed 001's ToolEnd and more): every step is an event with an
 * offset, readable from any offset across continue-as-new without reading history. It speaks the
 * Workflow Streams protocol of Temporal's `@temporalio/workflow-streams` (and its Python twin):
 * the `__temporal_workflow_stream_poll` Update (a long poll: `{ topics, from_offset }` →
 * `{ items, next_offset, more_ready }`), the `__temporal_workflow_stream_offset` Query, items as
 * base64 JSON Payloads, topics named by event type. Only the run publishes: the publish Signal is
 * taken and ignored. The log is bounded; a poll for an offset already dropped fails with
 * `TruncatedOffset`, as there. Workflow code (sandbox).
 */
import { ApplicationFailure, condition, defineQuery, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { JsonValue } from '../shared/json.js';
import { encodeJsonItem } from '../shared/stream-wire.js';
import type { RunEvent } from './run-events.js';

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

/** What a run hands to its continuation, in the protocol's own state shape. */
export interface StreamState {
  readonly log: readonly StreamWireItem[];
  readonly base_offset: number;
  readonly publisher_sequences: Record<string, number>;
  readonly publisher_last_seen: Record<string, number>;
}

export const streamPollUpdate = defineUpdate<StreamPollResult, [StreamPollInput]>('__temporal_workflow_stream_poll');
export const streamOffsetQuery = defineQuery<number>('__temporal_workflow_stream_offset');
/** Cairn's own addition: the same read without waiting, as a Query, so a finished run can still be read. */
export const streamReadQuery = defineQuery<StreamPollResult, [StreamPollInput]>('cairnStreamRead');
const streamPublishSignal = defineSignal<[unknown]>('__temporal_workflow_stream_publish');

/** Events kept in memory; older ones are dropped (a poll for them fails with TruncatedOffset). */
const MAX_KEPT_EVENTS = 1_000;
/** Characters of wire data kept in memory, and carried into continue-as-new. */
const MAX_KEPT_CHARS = 1_000_000;
const MAX_CARRIED_CHARS = 300_000;
/** An answer's ceiling in characters of wire data, as in Workflow Streams. */
const MAX_POLL_CHARS = 1_000_000;

export class RunStream {
  #log: StreamWireItem[];
  #chars: number;
  #base: number;
  #closed = false;

  constructor(carried?: StreamState) {
    this.#log = carried ? carried.log.map((item, i) => ({ ...item, offset: carried.base_offset + i })) : [];
    this.#base = carried?.base_offset ?? 0;
    this.#chars = this.#log.reduce((sum, item) => sum + item.data.length, 0);
  }

  install(): void {
    setHandler(streamPollUpdate, (input) => this.#poll(input), {
      validator: (input) => {
        if (this.#closed)
          throw ApplicationFailure.create({ message: 'The run is handing over (continue-as-new); poll the workflow id again.', type: 'StreamDraining', nonRetryable: true });
        if (!input || !Array.isArray(input.topics) || !input.topics.every((t: unknown) => typeof t === 'string') || !Number.isSafeInteger(input.from_offset) || input.from_offset < 0)
          throw ApplicationFailure.create({ message: 'Expected { topics: string[], from_offset: a whole number >= 0 }.', type: 'InvalidPoll', nonRetryable: true });
      },
      description: 'Workflow Streams long poll: the run events after from_offset.',
    });
    setHandler(streamOffsetQuery, () => this.#base + this.#log.length);
    setHandler(streamReadQuery, (input) => this.#read({ topics: Array.isArray(input?.topics) ? input.topics : [], from_offset: Math.max(0, Math.trunc(Number(input?.from_offset) || 0)) }));
    // Only the run writes its story; a Signal cannot be refused, so an outside publish is dropped.
    setHandler(streamPublishSignal, () => undefined);
  }

  /** The offset the next event gets. */
  get offset(): number {
    return this.#base + this.#log.length;
  }

  publish(event: RunEvent): void {
    const data = encodeJsonItem(event as unknown as JsonValue);
    this.#log.push({ topic: event.type, data, offset: this.offset });
    this.#chars += data.length;
    while (this.#log.length > MAX_KEPT_EVENTS || (this.#chars > MAX_KEPT_CHARS && this.#log.length > 1)) {
      this.#chars -= this.#log.shift()!.data.length;
      this.#base++;
    }
  }

  /** No more events in this run: waiting polls return what they have (the run finishes or hands over). */
  close(): void {
    this.#closed = true;
  }

  /** The hand-over did not happen after all. */
  reopen(): void {
    this.#closed = false;
  }

  /** The newest events that fit, for the next run of the chain; offsets continue there. */
  carried(): StreamState {
    let chars = 0;
    let first = this.#log.length;
    while (first > 0 && chars + this.#log[first - 1]!.data.length <= MAX_CARRIED_CHARS) chars += this.#log[--first]!.data.length;
    return { log: this.#log.slice(first).map((item) => ({ ...item, offset: 0 })), base_offset: this.#base + first, publisher_sequences: {}, publisher_last_seen: {} };
  }

  async #poll(input: StreamPollInput): Promise<StreamPollResult> {
    const truncated = () =>
      ApplicationFailure.create({
        message: `Offset ${input.from_offset} was dropped; the oldest kept is ${this.#base}.`,
        type: 'TruncatedOffset',
        nonRetryable: true,
      });
    if (input.from_offset !== 0 && input.from_offset < this.#base) throw truncated();
    await condition(() => this.#closed || this.offset > Math.max(input.from_offset, this.#base));
    if (input.from_offset !== 0 && input.from_offset < this.#base) throw truncated();
    return this.#read(input);
  }

  /** What is there from `from_offset` on (the oldest kept for an offset already dropped), at most MAX_POLL_CHARS. */
  #read(input: StreamPollInput): StreamPollResult {
    const from = Math.max(input.from_offset, this.#base);
    const topics = input.topics.length > 0 ? new Set(input.topics) : undefined;
    const items: StreamWireItem[] = [];
    let chars = 0;
    for (let i = from - this.#base; i < this.#log.length; i++) {
      const item = this.#log[i]!;
      if (topics && !topics.has(item.topic)) continue;
      if (items.length > 0 && chars + item.data.length > MAX_POLL_CHARS) return { items, next_offset: item.offset, more_ready: true };
      items.push(item);
      chars += item.data.length;
    }
    return { items, next_offset: this.offset, more_ready: false };
  }
}
