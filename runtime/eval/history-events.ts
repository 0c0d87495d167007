/**
 * A Temporal history (decoded proto, or its JSON) as the events an evaluation reads
 * (shared/eval/recording.ts), payloads decoded the way the workers wrote them: through the same
 * payload codecs (encryption) and payload converter. Node-only.
 */
import type { PayloadCodec, PayloadConverter } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJson, type History } from './history-json.js';
import type { JsonValue } from '../../shared/json/json.js';
import { RecordingError, type EvalEvent } from '../../shared/eval/recording.js';

type Payload = { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null };
type Payloads = { payloads?: Payload[] | null } | null | undefined;

export interface PayloadDecoding {
  readonly payloadCodecs?: readonly PayloadCodec[];
  readonly payloadConverter?: PayloadConverter;
}

const CLOSED = {
  workflowExecutionCompletedEventAttributes: 'completed',
  workflowExecutionFailedEventAttributes: 'failed',
  workflowExecutionCanceledEventAttributes: 'canceled',
  workflowExecutionTerminatedEventAttributes: 'terminated',
  workflowExecutionTimedOutEventAttributes: 'timed_out',
  workflowExecutionContinuedAsNewEventAttributes: 'continued_as_new',
} as const;

function isHistory(value: unknown): value is History {
  const first = (value as { events?: { eventType?: unknown }[] } | null)?.events?.[0];
  return typeof first?.eventType === 'number';
}

/** The events of `history`. Throws RecordingError (`unreadable`) when a payload cannot be decoded. */
export async function historyEvents(history: History | unknown, decoding: PayloadDecoding = {}): Promise<EvalEvent[]> {
  let decoded: History;
  try {
    decoded = isHistory(history) ? history : historyFromJson(history);
  } catch (error) {
    throw new RecordingError('unreadable', `Not a workflow history: ${(error as Error).message}`);
  }
  const converter = decoding.payloadConverter ?? defaultPayloadConverter;
  const codecs = [...(decoding.payloadCodecs ?? [])].reverse();
  const first = async (payloads: Payloads): Promise<JsonValue> => {
    let list = (payloads?.payloads ?? []) as Parameters<PayloadCodec['decode']>[0];
    if (list.length === 0) return null;
    try {
      for (const codec of codecs) list = await codec.decode(list);
      return (converter.fromPayload(list[0]!) ?? null) as JsonValue;
    } catch (error) {
      throw new RecordingError(
        'unreadable',
        `A payload of this history cannot be decoded (${(error as Error).message}): give the evaluation the codec the workers use.`,
      );
    }
  };
  const events: EvalEvent[] = [];
  for (const event of decoded.events ?? []) {
    const time = event.eventTime
      ? Number(event.eventTime.seconds ?? 0) * 1000 + Math.floor((event.eventTime.nanos ?? 0) / 1e6)
      : 0;
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      events.push({
        type: 'started',
        workflowType: started.workflowType?.name ?? '',
        input: await first(started.input),
        time,
      });
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      events.push({
        type: 'activity_scheduled',
        id: Number(event.eventId),
        activityType: scheduled.activityType?.name ?? '',
        input: await first(scheduled.input),
      });
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      events.push({
        type: 'activity_completed',
        scheduledId: Number(completed.scheduledEventId),
        result: await first(completed.result),
      });
      continue;
    }
    if (event.timerStartedEventAttributes) {
      events.push({ type: 'timer_started' });
      continue;
    }
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update) {
      events.push({ type: 'update_accepted', name: update.name ?? '', args: await first(update.args) });
      continue;
    }
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled) {
      events.push({ type: 'signaled', name: signaled.signalName ?? '', args: await first(signaled.input) });
      continue;
    }
    for (const [key, status] of Object.entries(CLOSED)) {
      const attributes = event[key as keyof typeof CLOSED] as
        | { result?: Payloads; failure?: { message?: string | null } | null }
        | null
        | undefined;
      if (!attributes) continue;
      events.push({
        type: 'closed',
        status,
        time,
        ...(attributes.result !== undefined && { result: await first(attributes.result) }),
        ...(attributes.failure?.message != null && { failure: attributes.failure.message }),
      });
    }
  }
  return events;
}
