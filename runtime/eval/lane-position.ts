/**
 * Where the running activity stands in its own lane run's history: how many activities like it
 * were scheduled before it. The place in the recorded turns lives there, not in the evaluating
 * process, so an evaluation killed and run again serves a lane run in flight from where its
 * history is (a retried activity keeps its place: it is the same scheduled event). Node-only.
 */
import { activityInfo } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { EvalEvent } from '../../shared/eval/recording.js';
import { historyEvents, type PayloadDecoding } from './history-events.js';

export type ScheduledActivity = Extract<EvalEvent, { type: 'activity_scheduled' }>;

/** The activities scheduled before the running one in its run that `match` accepts (undefined outside a workflow). */
export async function scheduledBefore(
  client: Client,
  decoding: PayloadDecoding,
  match: (activity: ScheduledActivity) => boolean,
): Promise<number | undefined> {
  const info = activityInfo();
  if (!info.workflowExecution) return undefined;
  const { workflowId, runId } = info.workflowExecution;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const own = history.events?.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityId === info.activityId,
  );
  const before = Number(own?.eventId ?? Number.POSITIVE_INFINITY);
  return (await historyEvents(history, decoding)).filter(
    (event): event is ScheduledActivity => event.type === 'activity_scheduled' && event.id < before && match(event),
  ).length;
}
