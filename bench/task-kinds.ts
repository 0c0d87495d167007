/**
 * Each workflow task of one run's history, by what woke it: the run's start, a model result, tool
 * results, a person's answer (an Update or a Signal), or the start of a continuation
 * (continue-as-new). Its time is the history's WorkflowTaskStarted → WorkflowTaskCompleted (the
 * worker's part: poll response in, completion out, as the server stamps them); its bytes are the
 * encoded events its commands wrote (scheduled activities, markers, upserts, Update outcomes, the
 * run's end). Node-only (protobuf sizes).
 */
// Installed with @temporalio/client (a CommonJS module: its namespace is the default export).
import protos, { type temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;
const { HistoryEvent } = protos.temporal.api.history.v1;
const { EventType: T } = protos.temporal.api.enums.v1;

export const TASK_KINDS = ['start', 'model result', 'tool results', 'person', 'continue-as-new start'] as const;
/** A kind of TASK_KINDS, or `other: <event types>` for a task something else woke. */
export type TaskKind = (typeof TASK_KINDS)[number] | `other: ${string}`;

export interface WorkflowTask {
  readonly kind: TaskKind;
  /** WorkflowTaskStarted → WorkflowTaskCompleted, ms. */
  readonly ms: number;
  /** WorkflowTaskScheduled → WorkflowTaskStarted, ms (waiting for the worker to take it). */
  readonly waitMs: number;
  /** Encoded bytes of the events the task's commands wrote (after WorkflowTaskCompleted). */
  readonly commandBytes: number;
  /** Activity results that woke it (tool results: how many of the batch came in this task). */
  readonly results: number;
  /** The events its commands wrote, by type (`activity_task_scheduled`…), in order. */
  readonly commands: readonly string[];
}

const eventMs = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1_000 + (e.eventTime?.nanos ?? 0) / 1e6;
const size = (e: Event) => HistoryEvent.encode(e).finish().length;
const type = (e: Event) => Number(e.eventType);
const typeName = (e: Event) => (T[type(e)] ?? String(type(e))).replace(/^EVENT_TYPE_/, '').toLowerCase();

/** Events a workflow task's commands write right after its WorkflowTaskCompleted. */
const COMMAND_EVENTS = new Set<number>([
  T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  T.EVENT_TYPE_TIMER_STARTED,
  T.EVENT_TYPE_TIMER_CANCELED,
  T.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
  T.EVENT_TYPE_MARKER_RECORDED,
  T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
  T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
]);

const RESULTS = new Set<number>([T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, T.EVENT_TYPE_ACTIVITY_TASK_FAILED]);

/** What woke a task: the events since the previous task completed (or the run started). */
function kindOf(waking: readonly Event[], activityTypes: ReadonlyMap<string, string>): TaskKind {
  const started = waking.find((e) => type(e) === T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  if (started)
    return started.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ? 'continue-as-new start' : 'start';
  if (
    waking.some(
      (e) =>
        type(e) === T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED ||
        type(e) === T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ADMITTED,
    )
  )
    return 'person';
  const activities = waking.flatMap((e) => {
    const a = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    return a ? [activityTypes.get(String(a.scheduledEventId)) ?? '?'] : [];
  });
  if (activities.includes('callModel')) return 'model result';
  if (activities.includes('runTool')) return 'tool results';
  const names = [...new Set(waking.map(typeName))];
  return `other: ${names.join(', ') || 'nothing'}`;
}

/** The completed workflow tasks of one run (one execution, not a chain), in order. */
export function workflowTasks(events: readonly Event[]): WorkflowTask[] {
  const activityTypes = new Map<string, string>();
  const tasks: WorkflowTask[] = [];
  let waking: Event[] = [];
  let scheduled: { at: number; kind: TaskKind; results: number } | undefined;
  let startedAt = 0;
  for (const [i, e] of events.entries()) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) activityTypes.set(String(e.eventId), name);
    switch (type(e)) {
      case T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
        // A retried task (after a timeout or failure) keeps what woke the first attempt.
        scheduled = { at: eventMs(e), kind: scheduled?.kind ?? kindOf(waking, activityTypes), results: 0 };
        break;
      case T.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        startedAt = eventMs(e);
        // Results that came after it was scheduled are in the task too.
        if (scheduled) scheduled.results = waking.filter((w) => RESULTS.has(type(w))).length;
        break;
      case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        let commandBytes = 0;
        let accepted = false;
        const commands: string[] = [];
        for (let j = i + 1; j < events.length && COMMAND_EVENTS.has(type(events[j]!)); j++) {
          commandBytes += size(events[j]!);
          commands.push(typeName(events[j]!));
          accepted ||= type(events[j]!) === T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED;
        }
        // An Update rides a task of its own that history records only once it completes: nothing before it says so.
        const kind = accepted ? 'person' : (scheduled?.kind ?? kindOf(waking, activityTypes));
        tasks.push({
          kind,
          ms: eventMs(e) - startedAt,
          waitMs: startedAt - (scheduled?.at ?? startedAt),
          commandBytes,
          results: scheduled?.results ?? 0,
          commands,
        });
        waking = [];
        scheduled = undefined;
        break;
      }
      case T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
      case T.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        break; // retried: the next Scheduled keeps the kind
      default:
        if (!COMMAND_EVENTS.has(type(e))) waking.push(e);
    }
  }
  return tasks;
}
