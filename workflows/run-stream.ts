/**
 * The run's live event stream (seed 001's ToolEnd and more): every step is an event with an
 * offset, readable from any offset across continue-as-new without reading history. It speaks the
 * Workflow Streams protocol of Temporal's `@temporalio/workflow-streams` (and its Python twin):
 * the `__temporal_workflow_stream_poll` Update (a long poll: `{ topics, from_offset }` →
 * `{ items, next_offset, more_ready }`), the `__temporal_workflow_stream_offset` Query, items as
 * base64 JSON Payloads, topics named by event type. The run publishes its events; activities
 * publish a model's live deltas with the publish Signal (run-stream-publish.ts: validated,
 * deduplicated by publisher id and sequence, anything else dropped). Deltas are not carried into
 * continue-as-new, so the carried log can have gaps: offsets stay as first given. The log is
 * bounded; a poll for an offset already dropped fails with `TruncatedOffset`, as there. A run
 * that finishes while a reader follows it waits, briefly, until the reader has read the end
 * (`linger`). Its messages and wire types are the contract's (workflows/contract/stream-protocol.ts). Workflow
 * code (sandbox).
 */
import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { isLiveTopic } from '../shared/live/model-delta.js';
import { PublishDedup, publishedItems, validPublish } from './run-stream-publish.js';
import type { JsonValue } from '../shared/json/json.js';
import { encodeJsonItem } from '../shared/stream-wire.js';
import {
  streamOffsetQuery,
  streamPollUpdate,
  streamPublishSignal,
  streamPublishUpdate,
  streamReadQuery,
  type FinalStream,
  type StreamPollInput,
  type StreamPollResult,
  type StreamState,
  type StreamWireItem,
} from './contract/stream-protocol.js';
import type { RunEvent } from './contract/run-event.js';

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
  #next: number;
  #closed = false;
  readonly #dedup = new PublishDedup();
  /** Workflow time of the latest poll, and the furthest offset a poll asked for: a reader has all before it. */
  #polledAt: number | null = null;
  #readTo = 0;

  constructor(carried?: StreamState) {
    // Items carried before gaps existed have offset 0 and sit at base_offset + index.
    this.#log = carried
      ? carried.log.map((item, i) => ({ ...item, offset: item.offset || carried.base_offset + i }))
      : [];
    this.#base = carried?.base_offset ?? 0;
    this.#next = Math.max(carried?.next_offset ?? 0, (this.#log.at(-1)?.offset ?? this.#base - 1) + 1, this.#base);
    this.#chars = this.#log.reduce((sum, item) => sum + item.data.length, 0);
  }

  install(): void {
    setHandler(streamPollUpdate, (input) => this.#poll(input), {
      validator: (input) => {
        if (this.#closed)
          throw ApplicationFailure.create({
            message: 'The run is handing over (continue-as-new); poll the workflow id again.',
            type: 'StreamDraining',
            nonRetryable: true,
          });
        if (
          !input ||
          !Array.isArray(input.topics) ||
          !input.topics.every((t: unknown) => typeof t === 'string') ||
          !Number.isSafeInteger(input.from_offset) ||
          input.from_offset < 0
        )
          throw ApplicationFailure.create({
            message: 'Expected { topics: string[], from_offset: a whole number >= 0 }.',
            type: 'InvalidPoll',
            nonRetryable: true,
          });
      },
      description: 'Workflow Streams long poll: the run events after from_offset.',
    });
    setHandler(streamOffsetQuery, () => this.#base + this.#log.length);
    setHandler(streamReadQuery, (input) =>
      this.#read({
        topics: Array.isArray(input?.topics) ? input.topics : [],
        from_offset: Math.max(0, Math.trunc(Number(input?.from_offset) || 0)),
      }),
    );
    // Only live deltas may come from outside, and a Signal cannot be refused: anything else is dropped.
    setHandler(streamPublishSignal, (input) => {
      for (const item of publishedItems(input, this.#dedup)) this.#append(item.topic, item.data);
    });
    setHandler(
      streamPublishUpdate,
      (input) => {
        for (const item of publishedItems(input, this.#dedup)) this.#append(item.topic, item.data);
      },
      {
        validator: (input) => {
          if (!validPublish(input))
            throw ApplicationFailure.create({
              message: `Expected { items: 1 to 64 live events (model_delta, model_reset), publisher_id, sequence >= 1 }.`,
              type: 'InvalidPublish',
              nonRetryable: true,
            });
        },
        description:
          "Cairn's durable transport: a batch of a model call's live deltas (a repeated sequence is taken once).",
      },
    );
  }

  /** The offset the next event gets. */
  get offset(): number {
    return this.#next;
  }

  publish(event: RunEvent): void {
    this.#append(event.type, encodeJsonItem(event as unknown as JsonValue));
  }

  #append(topic: string, data: string): void {
    this.#log.push({ topic, data, offset: this.#next++ });
    this.#chars += data.length;
    while (this.#log.length > MAX_KEPT_EVENTS || (this.#chars > MAX_KEPT_CHARS && this.#log.length > 1)) {
      this.#chars -= this.#log.shift()!.data.length;
      this.#base = this.#log[0]?.offset ?? this.#next;
    }
  }

  /**
   * When a reader has polled within `ms` and not yet asked for what comes after the end, waits up
   * to `ms` for it to, so a subscriber that pauses between polls still gets the last events before
   * the run closes (an answer the run gives as it closes may never reach it). No reader, no wait.
   */
  async linger(ms: number): Promise<void> {
    const caughtUp = () => this.#readTo >= this.offset;
    if (ms <= 0 || this.#polledAt === null || Date.now() - this.#polledAt > ms || caughtUp()) return;
    await condition(caughtUp, ms);
  }

  /** No more events in this run: waiting polls return what they have (the run finishes or hands over). */
  close(): void {
    this.#closed = true;
  }

  /** The hand-over did not happen after all. */
  reopen(): void {
    this.#closed = false;
  }

  /** The newest events that fit (live deltas too), as the run completes: its result keeps them. */
  final(): FinalStream {
    let chars = 0;
    let first = this.#log.length;
    while (first > 0 && chars + this.#log[first - 1]!.data.length <= MAX_CARRIED_CHARS)
      chars += this.#log[--first]!.data.length;
    return { log: this.#log.slice(first), next_offset: this.#next };
  }

  /** The newest events that fit, for the next run of the chain; offsets continue there. */
  carried(): StreamState {
    // A turn's deltas are done with once its reply is recorded (hand-over happens between steps).
    const log = this.#log.filter((item) => !isLiveTopic(item.topic));
    const gaps = log.length < this.#log.length;
    let chars = 0;
    let first = log.length;
    while (first > 0 && chars + log[first - 1]!.data.length <= MAX_CARRIED_CHARS) chars += log[--first]!.data.length;
    const kept = log.slice(first);
    return {
      log: kept.map((item) => ({ ...item, offset: gaps ? item.offset : 0 })),
      base_offset: kept[0]?.offset ?? this.#next,
      publisher_sequences: {},
      publisher_last_seen: {},
      ...(gaps && { next_offset: this.#next }),
    };
  }

  async #poll(input: StreamPollInput): Promise<StreamPollResult> {
    const truncated = () =>
      ApplicationFailure.create({
        message: `Offset ${input.from_offset} was dropped; the oldest kept is ${this.#base}.`,
        type: 'TruncatedOffset',
        nonRetryable: true,
      });
    this.#polledAt = Date.now();
    this.#readTo = Math.max(this.#readTo, input.from_offset);
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
    // Offsets rise but may have gaps: the first item at or after `from`.
    let start = 0;
    for (let hi = this.#log.length; start < hi; ) {
      const mid = (start + hi) >> 1;
      if (this.#log[mid]!.offset < from) start = mid + 1;
      else hi = mid;
    }
    for (let i = start; i < this.#log.length; i++) {
      const item = this.#log[i]!;
      if (topics && !topics.has(item.topic)) continue;
      if (items.length > 0 && chars + item.data.length > MAX_POLL_CHARS)
        return { items, next_offset: item.offset, more_ready: true };
      items.push(item);
      chars += item.data.length;
    }
    return { items, next_offset: this.offset, more_ready: false };
  }
}
