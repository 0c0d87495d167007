/**
 * Subscribing to a run's live event stream (workflows/run-stream.ts) the way a Workflow Streams
 * subscriber does: long-poll Updates from an offset, by workflow id, so a subscriber follows the
 * run across continue-as-new and resumes after a restart from the last offset it saw. Ends after
 * the run's `finish` event; a run that closed any other way ends it with its failure (what
 * `result()` throws). Node-only (client side).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { decodeJsonItem } from '../shared/stream-wire.js';
import type { RunEvent, RunEventType } from '../workflows/run-events.js';
import { streamPollUpdate, streamReadQuery, type StreamPollResult } from '../workflows/run-stream.js';

/** One event of a run and where it sits in the run's stream. */
export type RunEventItem = RunEvent & { readonly offset: number };

export interface EventOptions {
  /** The first offset wanted (the `offset` of the last event seen, plus one). Default 0: the oldest kept. */
  readonly from?: number;
  /** Event types to read; default all. */
  readonly types?: readonly RunEventType[];
  /** Stops the subscription (the iterator throws the signal's reason). */
  readonly signal?: AbortSignal;
}

const RETRY_MS = 100;

export async function* runEvents(workflow: WorkflowHandle, options: EventOptions = {}): AsyncGenerator<RunEventItem, void> {
  let offset = options.from ?? 0;
  const topics = [...(options.types ?? [])];
  for (;;) {
    options.signal?.throwIfAborted();
    let result: StreamPollResult;
    try {
      const update = await workflow.startUpdate(streamPollUpdate, { args: [{ topics, from_offset: offset }], waitForStage: WorkflowUpdateStage.ACCEPTED });
      result = await update.result();
    } catch (error) {
      const type = (error as { cause?: { type?: string } }).cause?.type;
      if (type === 'TruncatedOffset') {
        offset = 0; // fell behind what the run keeps: go on from the oldest it has
        continue;
      }
      if (type === 'InvalidPoll') throw error;
      // Handing over (continue-as-new): the next poll reaches the new run. Closed: read the rest by Query.
      if (await closed(workflow)) {
        yield* readClosed(workflow, offset, topics);
        return;
      }
      await sleep(RETRY_MS, undefined, options.signal ? { signal: options.signal } : {});
      continue;
    }
    for (const event of decoded(result)) {
      yield event;
      if (event.type === 'finish') return;
    }
    offset = result.next_offset;
    // An empty answer comes back when the run closes its stream (finishing or handing over).
    if (result.items.length === 0 && !result.more_ready && (await closed(workflow))) {
      yield* readClosed(workflow, offset, topics);
      return;
    }
  }
}

/** The events of a finished run from `offset` on, read by Query (a closed run takes no Update). */
async function* readClosed(workflow: WorkflowHandle, offset: number, topics: string[]): AsyncGenerator<RunEventItem, void> {
  for (;;) {
    const result = await workflow.query(streamReadQuery, { topics, from_offset: offset });
    yield* decoded(result);
    if (!result.more_ready) return;
    offset = result.next_offset;
  }
}

function* decoded(result: StreamPollResult): Generator<RunEventItem> {
  for (const item of result.items) {
    const event = decodeJsonItem(item.data) as RunEvent | undefined;
    if (event) yield { ...event, offset: item.offset };
  }
}

/** True once the run completed; throws its failure when it closed any other way; false while it runs or hands over. */
async function closed(workflow: WorkflowHandle): Promise<boolean> {
  const { status } = await workflow.describe();
  if (status.name === 'RUNNING' || status.name === 'CONTINUED_AS_NEW') return false;
  await workflow.result();
  return true;
}
