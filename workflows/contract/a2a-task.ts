/**
 * A run as an A2A 1.0 task, in the protocol's JSON (the `Task` message as the SDK's `toJSON`
 * writes it): the task id is the run's workflow id, the context id the one the task was started
 * in (kept in the run's memo). Input-required carries what is asked as a data part — the question
 * with the JSON Schema of its answer, the held calls with their arguments, args hash and allowed
 * decisions — beside a text part saying the same for people; a failure or cancel carries its
 * reason; a completed run carries its answer as an artifact. The A2A server reads it through the
 * SDK (`Task.fromJSON`) and the workflow posts it as a push notification, so both say the same.
 * Part of the run's contract (workflows/contract/index.ts): pure, workflow-safe, no SDK.
 */
import type { JsonObject } from '../../shared/json/json.js';
import { describePending, type PendingInput } from './pending-input.js';
import type { RunStatusName, StatusOfState } from './run-status.js';

/** The memo key holding a task's A2A context id. */
export const CONTEXT_MEMO_KEY = 'cairnA2aContextId';
/** The media type of the data part that says what an input-required task waits for. */
export const INPUT_REQUIRED_MEDIA_TYPE = 'application/vnd.cairn.input-required+json';
/** The artifact that holds a finished run's answer. */
export const ANSWER_ARTIFACT_ID = 'answer';

/** The protocol's name of each status (`TaskState` in JSON). */
export const TASK_STATE_NAMES: Readonly<Record<RunStatusName, string>> = {
  working: 'TASK_STATE_WORKING',
  input_required: 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
};

export interface A2ATaskOf extends StatusOfState {
  readonly taskId: string;
  readonly contextId: string;
  /** When the status was seen (ISO 8601). */
  readonly timestamp: string;
  /** The status message's id (a UUID; the workflow's is deterministic). */
  readonly messageId: string;
  readonly metadata: JsonObject;
}

/** The structured form of what a task waits for (the data part of its status message). */
export function inputRequiredData(taskId: string, pending: PendingInput): JsonObject {
  const how: string[] = [];
  if (pending.question)
    how.push(
      `To answer the question, send a message in task ${taskId} with a data part { "answer": <fitting the schema> } (or a text part).`,
    );
  if (pending.reviews.length > 0)
    how.push(
      `To decide each held call, send a message in task ${taskId} with a data part { "decision": "accept" | "edit" | "respond" | "reject", "toolCallId", "argsHash" } (with "args" for edit, "content" for respond, "reason" for reject).`,
    );
  return JSON.parse(
    JSON.stringify({
      kind: 'cairn.input-required',
      question: pending.question,
      reviews: pending.reviews,
      howToAnswer: how.join(' '),
    }),
  ) as JsonObject;
}

/** The artifact holding a finished run's answer. */
export function answerArtifactJson(answer: string): JsonObject {
  return {
    artifactId: ANSWER_ARTIFACT_ID,
    name: 'answer',
    description: "The run's final answer.",
    parts: [{ text: answer, mediaType: 'text/plain' }],
  };
}

/** The task, without its history, as A2A JSON. */
export function a2aTaskJson(task: A2ATaskOf): JsonObject {
  const parts: JsonObject[] = [];
  if (task.status === 'input_required' && task.pending)
    parts.push(
      { text: describePending(task.pending), mediaType: 'text/plain' },
      { data: inputRequiredData(task.taskId, task.pending), mediaType: INPUT_REQUIRED_MEDIA_TYPE },
    );
  else if ((task.status === 'failed' || task.status === 'canceled') && task.reason)
    parts.push({ text: task.reason, mediaType: 'text/plain' });
  else if (task.status === 'completed' && task.answer !== undefined)
    parts.push({ text: task.answer, mediaType: 'text/plain' });
  const message = parts.length > 0 && {
    messageId: task.messageId,
    contextId: task.contextId,
    taskId: task.taskId,
    role: 'ROLE_AGENT',
    parts,
  };
  const answered = task.answer !== undefined && (task.status === 'completed' || task.status === 'canceled');
  return {
    id: task.taskId,
    contextId: task.contextId,
    status: { state: TASK_STATE_NAMES[task.status], ...(message && { message }), timestamp: task.timestamp },
    artifacts: answered ? [answerArtifactJson(task.answer!)] : [],
    metadata: task.metadata,
  };
}
