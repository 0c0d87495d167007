/**
 * Where a run's time went, read from its history: on durable timers (flow control's waits, and
 * backoffs), waiting for a worker to pick a task up (activity and workflow tasks scheduled, not yet
 * started: a busy or starved worker), in the model activity (held in the worker for a slot, the
 * transcript read, and the provider call), in tool activities, and in workflow tasks (the worker
 * running the run's code). Means per run; they overlap where a run does two things at once. Node-only.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { figure, median } from './report.js';

type Event = temporal.api.history.v1.IHistoryEvent;

/** temporal.api.enums.v1.EventType values (@temporalio/proto is not one of Cairn's dependencies). */
const EventType = {
  WORKFLOW_EXECUTION_STARTED: 1,
  WORKFLOW_EXECUTION_COMPLETED: 2,
  WORKFLOW_TASK_SCHEDULED: 5,
  WORKFLOW_TASK_STARTED: 6,
  WORKFLOW_TASK_COMPLETED: 7,
  ACTIVITY_TASK_SCHEDULED: 10,
  ACTIVITY_TASK_STARTED: 11,
  ACTIVITY_TASK_COMPLETED: 12,
  TIMER_STARTED: 17,
  TIMER_FIRED: 18,
} as const;

export interface RunTimeSplit {
  readonly runs: number;
  /** Means per run, in seconds. */
  readonly runMs: number;
  readonly timersMs: number;
  readonly waitingForWorkerMs: number;
  readonly modelActivityMs: number;
  readonly toolActivitiesMs: number;
  readonly workflowTasksMs: number;
  /** The median run's duration, and the longest. */
  readonly medianRunMs: number;
  readonly longestRunMs: number;
}

const ms = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1_000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** The split of one run's events, in ms. */
export function splitOf(events: readonly Event[]): Omit<RunTimeSplit, 'runs' | 'medianRunMs' | 'longestRunMs'> {
  const at = new Map<number, number>(); // event id → time
  const activityType = new Map<number, string>(); // scheduled event id → activity type
  const split = {
    runMs: 0,
    timersMs: 0,
    waitingForWorkerMs: 0,
    modelActivityMs: 0,
    toolActivitiesMs: 0,
    workflowTasksMs: 0,
  };
  let first = 0;
  let last = 0;
  for (const e of events) {
    const t = ms(e);
    const id = Number(e.eventId);
    at.set(id, t);
    first ||= t;
    last = t;
    switch (Number(e.eventType)) {
      case EventType.ACTIVITY_TASK_SCHEDULED:
        activityType.set(id, e.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
        break;
      case EventType.ACTIVITY_TASK_STARTED:
      case EventType.WORKFLOW_TASK_STARTED: {
        const scheduled = Number(
          e.activityTaskStartedEventAttributes?.scheduledEventId ??
            e.workflowTaskStartedEventAttributes?.scheduledEventId,
        );
        split.waitingForWorkerMs += t - (at.get(scheduled) ?? t);
        break;
      }
      case EventType.ACTIVITY_TASK_COMPLETED: {
        const a = e.activityTaskCompletedEventAttributes;
        const spent = t - (at.get(Number(a?.startedEventId)) ?? t);
        if (activityType.get(Number(a?.scheduledEventId)) === 'callModel') split.modelActivityMs += spent;
        else split.toolActivitiesMs += spent;
        break;
      }
      case EventType.WORKFLOW_TASK_COMPLETED:
        split.workflowTasksMs += t - (at.get(Number(e.workflowTaskCompletedEventAttributes?.startedEventId)) ?? t);
        break;
      case EventType.TIMER_FIRED:
        split.timersMs += t - (at.get(Number(e.timerFiredEventAttributes?.startedEventId)) ?? t);
        break;
    }
  }
  split.runMs = last - first;
  return split;
}

/** Reads the runs' histories (16 at once) and gives the mean split. */
export async function runTimeSplit(client: Client, workflowIds: readonly string[]): Promise<RunTimeSplit> {
  const splits: ReturnType<typeof splitOf>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < workflowIds.length) {
        const id = workflowIds[next++]!;
        splits.push(splitOf((await client.workflow.getHandle(id).fetchHistory()).events ?? []));
      }
    }),
  );
  const mean = (key: keyof (typeof splits)[number]) =>
    splits.reduce((sum, s) => sum + s[key], 0) / Math.max(1, splits.length);
  const durations = splits.map((s) => s.runMs);
  return {
    runs: splits.length,
    runMs: mean('runMs'),
    timersMs: mean('timersMs'),
    waitingForWorkerMs: mean('waitingForWorkerMs'),
    modelActivityMs: mean('modelActivityMs'),
    toolActivitiesMs: mean('toolActivitiesMs'),
    workflowTasksMs: mean('workflowTasksMs'),
    medianRunMs: durations.length ? median(durations) : 0,
    longestRunMs: durations.length ? Math.max(...durations) : 0,
  };
}

/** One line: the mean run and its parts, in seconds and shares. */
export function describeSplit(s: RunTimeSplit): string {
  const part = (label: string, value: number) =>
    `${label} ${figure(value / 1_000)} s (${Math.round((100 * value) / Math.max(1, s.runMs))}%)`;
  return [
    `  a run's time (mean of ${s.runs}; median ${figure(s.medianRunMs / 1_000)} s, longest ${figure(s.longestRunMs / 1_000)} s): ${figure(s.runMs / 1_000)} s`,
    part('on timers', s.timersMs),
    part('waiting for a worker', s.waitingForWorkerMs),
    part('model activity (held in the worker + the call)', s.modelActivityMs),
    part('tools', s.toolActivitiesMs),
    part('workflow tasks', s.workflowTasksMs),
  ].join('; ');
}
