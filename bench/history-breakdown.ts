/**
 * Where a run's history bytes go: each event encoded as the server stores it (protobuf), grouped
 * by event type, and the parts Cairn decides — activity inputs and results per activity type,
 * summaries, retry policies, ids, search-attribute upserts, markers, messages — each measured as
 * what the event shrinks by without it. What remains of an event is Temporal's own (ids, times,
 * the worker's identity). Node-only.
 */
// Installed with @temporalio/client (a CommonJS module: its namespace is the default export).
import protos, { type temporal } from '@temporalio/proto';
import { figure, table } from './report.js';

type Event = temporal.api.history.v1.IHistoryEvent;
const { HistoryEvent } = protos.temporal.api.history.v1;
const { EventType } = protos.temporal.api.enums.v1;

/** One line of the breakdown: bytes and how many events or payloads they came from. */
export interface BreakdownRow {
  readonly what: string;
  readonly bytes: number;
  readonly count: number;
}

export interface HistoryBreakdown {
  /** Encoded bytes of all events (the server's own count adds a few bytes of framing). */
  readonly bytes: number;
  readonly byEventType: readonly BreakdownRow[];
  /** Parts of events, each as what its event would shrink by without it. */
  readonly byPart: readonly BreakdownRow[];
}

const size = (event: Event): number => HistoryEvent.encode(event).finish().length;

/** What `event` shrinks by when `strip` removes a part of it (a copy is changed, never the event). */
function partBytes(event: Event, strip: (copy: Event) => void): number {
  const copy = HistoryEvent.fromObject(HistoryEvent.toObject(HistoryEvent.decode(HistoryEvent.encode(event).finish())));
  strip(copy);
  return size(event) - size(copy);
}

function typeName(event: Event): string {
  const name = EventType[Number(event.eventType) as temporal.api.enums.v1.EventType] ?? String(event.eventType);
  return name.replace(/^EVENT_TYPE_/, '').toLowerCase();
}

/** Per activity type: the names activities were scheduled with, by scheduled event id. */
function activityTypes(events: readonly Event[]): Map<string, string> {
  const types = new Map<string, string>();
  for (const e of events) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) types.set(String(e.eventId), name);
  }
  return types;
}

export function historyBreakdown(events: readonly Event[]): HistoryBreakdown {
  const byType = new Map<string, { bytes: number; count: number }>();
  const parts = new Map<string, { bytes: number; count: number }>();
  const add = (map: typeof parts, what: string, bytes: number) => {
    if (bytes <= 0) return;
    const row = map.get(what) ?? { bytes: 0, count: 0 };
    row.bytes += bytes;
    row.count += 1;
    map.set(what, row);
  };
  const types = activityTypes(events);
  let bytes = 0;
  for (const e of events) {
    const n = size(e);
    bytes += n;
    add(byType, typeName(e), n);
    add(
      parts,
      'summaries (userMetadata)',
      partBytes(e, (c) => (c.userMetadata = null)),
    );
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name ?? '?';
      add(
        parts,
        `${type} input`,
        partBytes(e, (c) => (c.activityTaskScheduledEventAttributes!.input = null)),
      );
      add(
        parts,
        'activity retry policies',
        partBytes(e, (c) => (c.activityTaskScheduledEventAttributes!.retryPolicy = null)),
      );
      add(
        parts,
        'activity ids',
        partBytes(e, (c) => (c.activityTaskScheduledEventAttributes!.activityId = '')),
      );
      add(
        parts,
        'activity task queue names',
        partBytes(e, (c) => (c.activityTaskScheduledEventAttributes!.taskQueue = null)),
      );
      add(
        parts,
        'activity timeouts',
        partBytes(e, (c) => {
          const a = c.activityTaskScheduledEventAttributes!;
          a.scheduleToCloseTimeout = a.scheduleToStartTimeout = a.startToCloseTimeout = a.heartbeatTimeout = null;
        }),
      );
    }
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed)
      add(
        parts,
        `${types.get(String(completed.scheduledEventId)) ?? '?'} result`,
        partBytes(e, (c) => (c.activityTaskCompletedEventAttributes!.result = null)),
      );
    const failed = e.activityTaskFailedEventAttributes;
    if (failed)
      add(
        parts,
        `${types.get(String(failed.scheduledEventId)) ?? '?'} failure`,
        partBytes(e, (c) => (c.activityTaskFailedEventAttributes!.failure = null)),
      );
    if (e.workflowTaskCompletedEventAttributes)
      add(
        parts,
        'SDK metadata',
        partBytes(e, (c) => (c.workflowTaskCompletedEventAttributes!.sdkMetadata = null)),
      );
    for (const key of [
      'workflowTaskCompletedEventAttributes',
      'workflowTaskStartedEventAttributes',
      'activityTaskStartedEventAttributes',
    ] as const)
      if (e[key]?.workerVersion)
        add(
          parts,
          'worker build ids',
          partBytes(e, (c) => (c[key]!.workerVersion = null)),
        );
    if (e.workflowTaskScheduledEventAttributes)
      add(
        parts,
        'workflow task queue names',
        partBytes(e, (c) => (c.workflowTaskScheduledEventAttributes!.taskQueue = null)),
      );
    for (const attrs of [
      e.workflowTaskCompletedEventAttributes,
      e.workflowTaskStartedEventAttributes,
      e.activityTaskStartedEventAttributes,
      e.activityTaskCompletedEventAttributes,
    ])
      if (attrs && 'identity' in attrs && attrs.identity)
        add(parts, 'worker identity', Buffer.byteLength(attrs.identity) + 2);
    if (e.upsertWorkflowSearchAttributesEventAttributes) add(parts, 'search-attribute upserts (whole events)', n);
    if (e.markerRecordedEventAttributes)
      add(parts, `markers: ${e.markerRecordedEventAttributes.markerName} (whole events)`, n);
    if (e.timerStartedEventAttributes) add(parts, 'timer starts (whole events)', n);
    if (e.workflowExecutionSignaledEventAttributes) add(parts, 'signals (whole events)', n);
    if (e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateCompletedEventAttributes)
      add(parts, 'updates (whole events)', n);
    const started = e.workflowExecutionStartedEventAttributes;
    if (started)
      add(
        parts,
        'run input',
        partBytes(e, (c) => (c.workflowExecutionStartedEventAttributes!.input = null)),
      );
    const done = e.workflowExecutionCompletedEventAttributes;
    if (done)
      add(
        parts,
        'run result',
        partBytes(e, (c) => (c.workflowExecutionCompletedEventAttributes!.result = null)),
      );
  }
  const rows = (map: typeof parts) =>
    [...map.entries()].map(([what, r]) => ({ what, ...r })).sort((a, b) => b.bytes - a.bytes);
  return { bytes, byEventType: rows(byType), byPart: rows(parts) };
}

/** The breakdown as two tables, per turn. */
export function historyBreakdownReport(b: HistoryBreakdown, turns: number): string {
  const line = (r: BreakdownRow) => [
    r.what,
    figure(r.bytes / turns, 0),
    figure(r.count / turns, 2),
    `${((100 * r.bytes) / b.bytes).toFixed(1)}%`,
  ];
  return [
    table(['event type', 'B/turn', 'events/turn', 'share'], b.byEventType.map(line)),
    '',
    table(
      ['part of events (bytes the events would lose without it)', 'B/turn', 'per turn', 'share'],
      b.byPart.map(line),
    ),
  ].join('\n');
}
