/**
 * A run as an A2A task, as `@a2a-js/sdk` objects: the contract's JSON (workflows/contract/a2a-task.ts,
 * which the run's push notifications carry too) read through the SDK, with the task's history.
 * Built from `runStatus`, so any instance builds the same task. Node-only (client side); loads
 * `@a2a-js/sdk` (an optional peer).
 */
import { randomUUID } from 'node:crypto';
import { Artifact, Message as MessageJson, Role, Task, TaskState, type Message, type Part } from '@a2a-js/sdk';
import type { JsonObject } from '../../shared/json/json.js';
import {
  a2aTaskJson,
  answerArtifactJson,
  ANSWER_ARTIFACT_ID,
  CONTEXT_MEMO_KEY,
  INPUT_REQUIRED_MEDIA_TYPE,
  TASK_STATE_NAMES,
} from '../../workflows/contract/a2a-task.js';
import type { RunStatus, RunStatusName } from './run-status.js';

export { ANSWER_ARTIFACT_ID, CONTEXT_MEMO_KEY, INPUT_REQUIRED_MEDIA_TYPE };

export function taskState(status: RunStatusName): TaskState {
  return TaskState[TASK_STATE_NAMES[status] as keyof typeof TaskState];
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

export function answerArtifact(answer: string): Artifact {
  return Artifact.fromJSON(answerArtifactJson(answer));
}

/** The context id a run's task belongs to (its memo; the workflow id for runs started elsewhere). */
export function contextIdOf(run: RunStatus): string {
  const value = run.memo?.[CONTEXT_MEMO_KEY];
  return typeof value === 'string' ? value : run.workflowId;
}

/** The run as an A2A task. */
export function toTask(run: RunStatus, history: Message[] = []): Task {
  const json = a2aTaskJson({
    ...run,
    taskId: run.workflowId,
    contextId: contextIdOf(run),
    timestamp: (run.closeTime ?? new Date()).toISOString(),
    messageId: randomUUID(),
    metadata: {
      agent: run.state?.agent ?? null,
      phase: run.state?.phase ?? null,
      turn: run.state?.turn ?? null,
      // Read from what Temporal keeps (no worker answered in time, or a list): it may be behind.
      ...(run.state?.stale && { stale: true }),
    },
  });
  return Task.fromJSON({ ...json, history: history.map((m) => MessageJson.toJSON(m)) });
}
