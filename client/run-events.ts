/**
 * Subscribing to a run's live event stream (workflows/contract/stream-protocol.ts) the way a Workflow Streams
 * subscriber does: long-poll Updates from an offset, by workflow id, so a subscriber follows the
 * run across continue-as-new and resumes after a restart from the last offset it saw. Ends after
 * the run's `finish` event; a run that closed any other way ends it with the events it had, then
 * its failure (what `result()` throws). Node-only (client side).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { decodeJsonItem } from '../shared/stream-wire.js';
import { finalStreamOf, finalStreamPage } from './final-stream.js';
import type { LiveEvent } from '../shared/live/model-delta.js';
import {
  streamPollUpdate,
  streamReadQuery,
  type RunEvent,
  type RunEventType,
  type StreamPollResult,
} from '../workflows/contract/index.js';

/**
 * One event of a run and where it sits in the run's stream: the run's own events, and the live
 * deltas of model turns when the worker streams them durably (`model_delta`, `model_reset`).
 */
export type RunEventItem = (RunEvent | LiveEvent) & { readonly offset: number };

export interface EventOptions {
  /** The first offset wanted (the `offset` of the last event seen, plus one). Default 0: the oldest kept. */
  readonly from?: number;
  /** Event types to read; default all. */
  readonly types?: readonly (RunEventType | LiveEvent['type'])[];
  /** Stops the subscription (the iterator throws the signal's reason). */
  readonly signal?: AbortSignal;
}

const RETRY_MS = 100;

export async function* runEvents(
  workflow: WorkflowHandle,
  options: EventOptions = {},
): AsyncGenerator<RunEventItem, void> {
  let offset = options.from ?? 0;
  const topics = [...(options.types ?? [])];
  for (;;) {
    options.signal?.throwIfAborted();
    let result: StreamPollResult;
    try {
      const update = await workflow.startUpdate(streamPollUpdate, {
        args: [{ topics, from_offset: offset }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      result = await update.result();
    } catch (error) {
      const type = (error as { cause?: { type?: string } }).cause?.type;
      if (type === 'TruncatedOffset') {
        offset = 0; // fell behind what the run keeps: go on from the oldest it has
        continue;
      }
      if (type === 'InvalidPoll') throw error;
      // Handing over (continue-as-new): the next poll reaches the new run. Closed: read the rest by Query.
      const status = await closed(workflow);
      if (status) {
        yield* readClosed(workflow, offset, topics, status);
        return;
      }
      await sleep(RETRY_MS, undefined, options.signal ? { signal: options.signal } : {});
      continue;
    }
    for (const event of decoded(result)) {
      if (event.type === 'finish') {
        // Tells the run this reader has the end, so it need not wait for it (run-stream.ts `linger`).
        // Settled before the generator ends: a caller that closes its connection right after must
        // not leave this call in flight (grpc-js would retry it on a closed channel and throw).
        const told = workflow
          .startUpdate(streamPollUpdate, {
            args: [{ topics, from_offset: event.offset + 1 }],
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          })
          .catch(() => {});
        try {
          yield event;
        } finally {
          await told;
        }
        return;
      }
      yield event;
    }
    offset = result.next_offset;
    // An empty answer comes back when the run closes its stream (finishing or handing over).
    if (result.items.length === 0 && !result.more_ready) {
      const status = await closed(workflow);
      if (status) {
        yield* readClosed(workflow, offset, topics, status);
        return;
      }
    }
  }
}

/**
 * The events of a closed run from `offset` on: a completed run's from its result in history (no
 * worker needed), else read by Query (a closed run takes no Update); then, for a run that did not
 * complete, its failure. A run that failed before it answered Queries has no events to read: only
 * the failure.
 */
async function* readClosed(
  workflow: WorkflowHandle,
  offset: number,
  topics: string[],
  status: ClosedStatus,
): AsyncGenerator<RunEventItem, void> {
  const final = status === 'completed' ? finalStreamOf(await workflow.result().catch(() => undefined)) : undefined;
  if (final) {
    yield* decoded(finalStreamPage(final, { topics, from_offset: offset }));
    return;
  }
  try {
    for (;;) {
      const result = await workflow.query(streamReadQuery, { topics, from_offset: offset });
      yield* decoded(result);
      if (!result.more_ready) break;
      offset = result.next_offset;
    }
  } catch (error) {
    if (status === 'completed') throw error;
  }
  if (status === 'ended') await workflow.result();
}

function* decoded(result: StreamPollResult): Generator<RunEventItem> {
  for (const item of result.items) {
    const event = decodeJsonItem(item.data) as RunEvent | LiveEvent | undefined;
    if (event) yield { ...event, offset: item.offset };
  }
}

/** `completed`, `ended` (failed, terminated, cancelled, timed out), or undefined while it runs or hands over. */
type ClosedStatus = 'completed' | 'ended';

async function closed(workflow: WorkflowHandle): Promise<ClosedStatus | undefined> {
  const { status } = await workflow.describe();
  if (status.name === 'RUNNING' || status.name === 'CONTINUED_AS_NEW') return undefined;
  return status.name === 'COMPLETED' ? 'completed' : 'ended';
}
