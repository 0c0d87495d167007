/**
 * The durable transport: a model call's deltas go to the run's own stream as publish batches
 * (`{ items, publisher_id, sequence }`, the protocol of `@temporalio/workflow-streams`), sent by
 * Cairn's publish Update rather than the protocol's Signal, since Cairn's servers cap Signals per
 * run as a flood guard. Any Workflow Streams reader, `run.events()` and the HTTP handler see them
 * with offsets, across reconnects, with no infrastructure. Each attempt is its own publisher (the
 * run takes a repeated sequence once); a retried attempt's first batch starts with a
 * `model_reset` so readers drop the text of the attempt that died. Costs history: one Update per
 * batch (docs/bench.md). Worker side only.
 */
import type { Client } from '@temporalio/client';
import {
  MAX_PUBLISH_ITEMS,
  STREAM_PUBLISH_UPDATE,
  type ModelDelta,
  type PublishInput,
} from '../../shared/live/model-delta.js';
import { encodeJsonItem } from '../../shared/stream-wire.js';
import type { JsonValue } from '../../shared/json/json.js';
import { batcher, liveEventsOf, type DeltaTransport, type LiveCall } from './delta-transport.js';

export interface DurableTransportOptions {
  /** Deltas gathered before a publish, in ms (the first one goes at once); default 100. */
  readonly batchIntervalMs?: number;
  /** Characters of text and arguments per stream item, and per publish before it goes early; default 4,000. */
  readonly maxBatchChars?: number;
}

export function durableTransport(client: Client, options: DurableTransportOptions = {}): DeltaTransport {
  const maxChars = Math.max(1, options.maxBatchChars ?? 4_000);
  return {
    name: 'durable',
    open(call: LiveCall) {
      const handle = client.workflow.getHandle(call.workflowId, call.runId);
      const publisher = `${call.call}@${call.attempt}`;
      let sequence = 0;
      const eventsOf = liveEventsOf(call, maxChars);
      const send = async (deltas: ModelDelta[]) => {
        const events = eventsOf(deltas);
        for (let i = 0; i < events.length; i += MAX_PUBLISH_ITEMS) {
          const items = events
            .slice(i, i + MAX_PUBLISH_ITEMS)
            .map((event) => ({ topic: event.type, data: encodeJsonItem(event as unknown as JsonValue) }));
          await handle.executeUpdate<void, [PublishInput]>(STREAM_PUBLISH_UPDATE, {
            args: [{ items, publisher_id: publisher, sequence: ++sequence }],
          });
        }
      };
      return batcher(send, options.batchIntervalMs ?? 100, maxChars);
    },
  };
}
