/**
 * A run as an A2A task: the task id is the run's workflow id, the context id the one the task was
 * started in (kept in the run's memo). Input-required carries what is asked as a data part — the
 * question with the JSON Schema of its answer, the held calls with their arguments, args hash and
 * allowed decisions — beside a text part saying the same for people; a completed run carries its
 * answer as an artifact. Built from `runStatus`, so any instance builds the same task.
 * Node-only (client side); loads `@a2a-js/sdk` (an optional peer).
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { JsonObject } from '../../shared/json/json.js';
import { describePending, type PendingInput } from './run-input.js';
import type { RunStatus, RunStatusName } from './run-status.js';

/** The memo key holding a task's A2A context id. */
export const CONTEXT_MEMO_KEY = 'cairnA2aContextId';
/** The media type of the data part that says what an input-required task waits for. */
export const INPUT_REQUIRED_MEDIA_TYPE = 'application/vnd.cairn.input-required+json';
/** The artifact that holds a finished run's answer. */
export const ANSWER_ARTIFACT_ID = 'answer';

const STATES: Record<RunStatusName, TaskState> = {
  working: TaskState.TASK_STATE_WORKING,
  input_required: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

export function taskState(status: RunStatusName): TaskState {
  return STATES[status];
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: JsonObject, mediaType = 'application/json'): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType };
}

export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
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

/** The task's status: input-required with what is asked, a failure or cancel with its reason. */
export function taskStatus(run: RunStatus, contextId: string): TaskStatus {
  const timestamp = (run.closeTime ?? new Date()).toISOString();
  let message: Message | undefined;
  if (run.status === 'input_required' && run.pending)
    message = agentMessage(run.workflowId, contextId, [
      textPart(describePending(run.pending)),
      dataPart(inputRequiredData(run.workflowId, run.pending), INPUT_REQUIRED_MEDIA_TYPE),
    ]);
  else if ((run.status === 'failed' || run.status === 'canceled') && run.reason)
    message = agentMessage(run.workflowId, contextId, [textPart(run.reason)]);
  else if (run.status === 'completed' && run.answer !== undefined)
    message = agentMessage(run.workflowId, contextId, [textPart(run.answer)]);
  return { state: taskState(run.status), message, timestamp };
}

export function answerArtifact(answer: string): Artifact {
  return {
    artifactId: ANSWER_ARTIFACT_ID,
    name: 'answer',
    description: "The run's final answer.",
    parts: [textPart(answer)],
    metadata: undefined,
    extensions: [],
  };
}

/** The context id a run's task belongs to (its memo; the workflow id for runs started elsewhere). */
export function contextIdOf(run: RunStatus): string {
  const value = run.memo?.[CONTEXT_MEMO_KEY];
  return typeof value === 'string' ? value : run.workflowId;
}

/** The run as an A2A task. */
export function toTask(run: RunStatus, history: Message[] = []): Task {
  const contextId = contextIdOf(run);
  return {
    id: run.workflowId,
    contextId,
    status: taskStatus(run, contextId),
    artifacts:
      run.answer !== undefined && (run.status === 'completed' || run.status === 'canceled')
        ? [answerArtifact(run.answer)]
        : [],
    history,
    metadata: { agent: run.state?.agent ?? null, phase: run.state?.phase ?? null, turn: run.state?.turn ?? null },
  };
}
