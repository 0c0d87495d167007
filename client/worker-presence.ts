/**
 * Whether any worker polls a task queue, so that a read does not wait out its deadline on a Query
 * nobody can answer. Read from DescribeTaskQueue: the server notes a poller when its long poll
 * starts and keeps it for minutes after it went away, and an idle live worker's poll is up to a
 * minute old. So a queue counts as polled while its newest poll is younger than POLLED_WITHIN_MS,
 * except after a Query on it went unanswered: then not until a poll newer than any seen before
 * that Query (a live worker that takes a Query polls again at once). A worker gone for less than
 * a minute thus costs the first read one deadline, not every read. One answer per queue serves a
 * client for REUSE_MS, so lists and bursts do not ask the server each time. Node-only (client side).
 */
import type { Client } from '@temporalio/client';

/** Longer than the server's long poll (a minute): a live idle worker polls again within it. */
export const POLLED_WITHIN_MS = 75_000;
/** A poll's age past which the client's clock, not the poll, is off. */
export const SKEWED_MS = 24 * 3_600_000;
/** How long one look at a queue's pollers serves the reads that follow. */
const REUSE_MS = 1_500;
/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW (@temporalio/proto is not Cairn's to import). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

/** What a read learns of a task queue before it asks a run on it. */
export interface Presence {
  /** False when no worker could answer a Query on the queue now. */
  readonly polled: boolean;
  /** The newest poll the server noted, in epoch ms of the server's clock (0: none, or unknown). */
  readonly newestPoll: number;
}

interface QueueState {
  look?: { readonly at: number; readonly value: Promise<number | undefined> };
  /** The newest poll seen before a Query on the queue went unanswered. */
  missedAfter?: number;
}

const byClient = new WeakMap<Client, Map<string, QueueState>>();

function queueState(client: Client, taskQueue: string): QueueState {
  let queues = byClient.get(client);
  if (!queues) byClient.set(client, (queues = new Map()));
  let state = queues.get(taskQueue);
  if (!state) queues.set(taskQueue, (state = {}));
  return state;
}

/** Whether a worker polls `taskQueue` (workflow tasks). A queue that cannot be described counts as polled: the deadline bounds the read. */
export async function presenceOf(client: Client, taskQueue: string): Promise<Presence> {
  const state = queueState(client, taskQueue);
  const now = Date.now();
  if (!state.look || now - state.look.at > REUSE_MS)
    state.look = { at: now, value: newestPoll(client, taskQueue).catch(() => undefined) };
  const newest = await state.look.value;
  if (newest === undefined) return { polled: true, newestPoll: 0 };
  if (state.missedAfter !== undefined && newest > state.missedAfter) state.missedAfter = undefined;
  const age = Date.now() - newest;
  // The server drops a poller within minutes: an age past a day, or far in the future, is this
  // client's clock disagreeing with the server's (a fake clock, a bad NTP). It cannot judge
  // ages then: the queue counts as polled, and the deadline bounds the read.
  const skewed = age > SKEWED_MS || age < -SKEWED_MS;
  const polled = newest > 0 && (skewed || age <= POLLED_WITHIN_MS) && state.missedAfter === undefined;
  return { polled, newestPoll: newest };
}

/** A Query on `taskQueue`, sent when its newest poll was `presence.newestPoll`, got no answer in time. */
export function queryMissed(client: Client, taskQueue: string, presence: Presence): void {
  const state = queueState(client, taskQueue);
  state.missedAfter = Math.max(state.missedAfter ?? 0, presence.newestPoll);
}

/** A worker answered a Query on `taskQueue`. */
export function queryAnswered(client: Client, taskQueue: string): void {
  const state = byClient.get(client)?.get(taskQueue);
  if (state) state.missedAfter = undefined;
}

/** The newest poll of the queue's workflow tasks the server noted (0: none). */
async function newestPoll(client: Client, taskQueue: string): Promise<number> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
  });
  let newest = 0;
  for (const poller of pollers ?? []) {
    const at = poller.lastAccessTime;
    if (at) newest = Math.max(newest, Number(at.seconds ?? 0) * 1000 + Math.floor((at.nanos ?? 0) / 1e6));
  }
  return newest;
}
