/**
 * Reading a completed run's events from its result (`AgentRunResult.stream`), which history keeps:
 * no worker has to replay the run, so the events of a finished run are whole even with every
 * worker stopped. Pages are read as the run's `cairnStreamRead` Query reads its log. Pure;
 * client side.
 */
import type { FinalStream, StreamPollInput, StreamPollResult } from '../workflows/contract/index.js';

/** The stream a completed run's result holds; undefined for a result without one (runs from before it, children). */
export function finalStreamOf(result: unknown): FinalStream | undefined {
  const stream = (result as { stream?: Partial<FinalStream> } | null | undefined)?.stream;
  if (!stream || !Array.isArray(stream.log) || !Number.isSafeInteger(stream.next_offset)) return undefined;
  return stream as FinalStream;
}

/** Its events from `from_offset` on (the oldest kept for an offset no longer kept), all in one page. */
export function finalStreamPage(stream: FinalStream, input: StreamPollInput): StreamPollResult {
  const topics = input.topics.length > 0 ? new Set(input.topics) : undefined;
  return {
    items: stream.log.filter((item) => item.offset >= input.from_offset && (!topics || topics.has(item.topic))),
    next_offset: stream.next_offset,
    more_ready: false,
  };
}
