/**
 * `run.send(text)`: a person's message to a run while it works, with a clear status for every
 * outcome instead of an exception a caller must pick apart: accepted (queued for the next model
 * turn, or interrupting the current one), refused by the run (busy under `onMessage: 'reject'`, a
 * full queue, a run that is finishing or closed, a bad message), throttled by the server (too
 * many Updates in flight to one run: not taken, send again later), or unknown (no answer within
 * the deadline: it may have been taken; send again with the same `updateId` and the run answers
 * with the first outcome, never taking it twice). The HTTP layer (servers/http/user-message.ts)
 * maps `refused` to 409 (422 for `invalid`, 404 for a run that never was), `throttled` to 429 and
 * `unknown` to 504. Node-only (client side).
 */
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowHandle,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { sendMessageUpdate } from '../workflows/contract/index.js';

export type SendOutcome =
  | { readonly status: 'accepted'; readonly id: string; readonly delivery: 'queued' | 'interrupting' }
  | {
      readonly status: 'refused';
      readonly code: 'busy' | 'queue_full' | 'finishing' | 'closed' | 'invalid';
      readonly message: string;
    }
  | { readonly status: 'throttled'; readonly message: string }
  | { readonly status: 'unknown'; readonly updateId: string; readonly message: string };

const REFUSALS: Record<string, Extract<SendOutcome, { status: 'refused' }>['code']> = {
  RunBusy: 'busy',
  MessageQueueFull: 'queue_full',
  RunFinishing: 'finishing',
  HumanInputError: 'invalid',
};

/** gRPC RESOURCE_EXHAUSTED (the server caps in-flight Updates per run) and DEADLINE_EXCEEDED. */
const RESOURCE_EXHAUSTED = 8;
const DEADLINE_EXCEEDED = 4;

/** How long a send waits for the run to take the message (the client retries a throttled one meanwhile). */
export const SEND_DEADLINE_MS = 15_000;

export interface SendOptions {
  /** The Update's id: sending again with the same one never delivers the message twice. Default: a new one. */
  readonly updateId?: string;
  /** How long to wait for the run to take it; default SEND_DEADLINE_MS. */
  readonly deadlineMs?: number;
}

export async function sendMessage(
  workflow: WorkflowHandle,
  text: string,
  options: SendOptions = {},
): Promise<SendOutcome> {
  const updateId = options.updateId ?? randomUUID();
  try {
    const sent = await workflow.client.withDeadline(Date.now() + (options.deadlineMs ?? SEND_DEADLINE_MS), () =>
      workflow.executeUpdate(sendMessageUpdate, { args: [{ text }], updateId }),
    );
    return { status: 'accepted', ...sent };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const type = (error.cause as { type?: string } | undefined)?.type;
      const code = type ? REFUSALS[type] : undefined;
      if (code) return { status: 'refused', code, message: error.cause?.message ?? error.message };
    }
    if (
      error instanceof WorkflowNotFoundError ||
      /workflow execution already completed/i.test(String((error as Error).message))
    )
      return { status: 'refused', code: 'closed', message: `Run "${workflow.workflowId}" has closed.` };
    const code = grpcCode(error);
    if (code === RESOURCE_EXHAUSTED) return { status: 'throttled', message: (error as Error).message };
    if (code === DEADLINE_EXCEEDED || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      return { status: 'unknown', updateId, message: (error as Error).message };
    throw error;
  }
}

function grpcCode(error: unknown): number | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.code === 'number') return e.code;
  return undefined;
}
