/**
 * What a run waits for, as structured data another agent can act on, and the replies that answer
 * it — shared by the A2A server and the MCP server (both are stateless drivers of the run API,
 * like the HTTP handler). A question comes with the JSON Schema of its answer; a held call with
 * its arguments, their hash and the decisions its tool allows. A reply is checked by the run's
 * own Update validators (a stale hash, an answer to nothing pending, an oversized answer are
 * refused there, leaving nothing in history); this module only parses the shape and maps the
 * refusal to a stable code. Node-only (client side); never loads a protocol SDK.
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { NotPendingError } from '../../client/not-pending-error.js';
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { refusalCodeOf, type HumanInputRefusal } from '../../shared/human-input/refusal.js';
import { parseFlatReviewDecision } from '../../shared/human-input/review-decision.js';
import { parseBudgetDecision } from '../../shared/human-input/budget-decision.js';
import type { BudgetDecision, ReviewDecisionInput } from '../../workflows/contract/index.js';
export {
  answerSchema,
  describePending,
  pendingInput,
  type HeldCall,
  type PendingBudget,
  type PendingInput,
  type PendingQuestion,
} from '../../workflows/contract/pending-input.js';

/** One reply to a waiting run. */
export type RunReply =
  | { readonly kind: 'answer'; readonly answer: JsonValue; readonly questionId?: string }
  | {
      readonly kind: 'review';
      readonly toolCallId: string;
      readonly argsHash: string;
      readonly decision: ReviewDecisionInput;
    }
  | { readonly kind: 'budget'; readonly decision: BudgetDecision; readonly requestId?: string };

/** The `authorize` action a reply needs: a budget decision is authorized as a review, as over HTTP. */
export function replyAction(reply: RunReply): 'answer' | 'review' {
  return reply.kind === 'answer' ? 'answer' : 'review';
}

/** Why a reply was not taken: the run's refusal code, or what the driver found first. */
export type RunInputCode = HumanInputRefusal | 'unknown_run' | 'closed' | 'busy';

const marker: unique symbol = Symbol.for('cairn.client.RunInputError');

/** A reply the run (or the driver, for its shape) refused. Stable `name` and `code`. */
export class RunInputError extends Error {
  private readonly [marker] = true;
  override readonly name = 'RunInputError';

  constructor(
    readonly code: RunInputCode,
    message: string,
  ) {
    super(message);
  }

  static isInstance(error: unknown): error is RunInputError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/**
 * A reply read from a JSON object: `{ answer, questionId? }`, or `{ decision, toolCallId, argsHash }`
 * (`decision` a type name with `args` / `content` / `reason` beside it, or `{ type, … }`), or — while
 * a question is pending — the object itself as the answer (the fields its schema names).
 * Throws RunInputError('invalid_input') for anything else.
 */
export function parseReply(value: unknown, questionPending: boolean): RunReply {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RunInputError('invalid_input', 'A reply is a JSON object.');
  const o = value as Record<string, unknown>;
  if ('decision' in o) {
    if (typeof o.toolCallId !== 'string' || typeof o.argsHash !== 'string')
      throw new RunInputError(
        'invalid_input',
        'A review decision names the held call: { decision, toolCallId, argsHash }.',
      );
    return { kind: 'review', toolCallId: o.toolCallId, argsHash: o.argsHash, decision: parseDecision(o.decision, o) };
  }
  if ('budget' in o) {
    if (o.requestId !== undefined && typeof o.requestId !== 'string')
      throw new RunInputError('invalid_input', '"requestId" is text.');
    const parsed = parseBudgetDecision(o.budget);
    if (!parsed.ok) throw new RunInputError('invalid_input', parsed.message);
    return {
      kind: 'budget',
      decision: parsed.value,
      ...(typeof o.requestId === 'string' && { requestId: o.requestId }),
    };
  }
  if ('answer' in o) {
    if (o.questionId !== undefined && typeof o.questionId !== 'string')
      throw new RunInputError('invalid_input', '"questionId" is text.');
    return {
      kind: 'answer',
      answer: o.answer as JsonValue,
      ...(typeof o.questionId === 'string' && { questionId: o.questionId }),
    };
  }
  if (questionPending && Object.keys(o).length > 0) return { kind: 'answer', answer: o as JsonObject };
  throw new RunInputError(
    'invalid_input',
    'Expected { answer } for the pending question or { decision, toolCallId, argsHash } for a held call.',
  );
}

function parseDecision(decision: unknown, beside: Record<string, unknown>): ReviewDecisionInput {
  const parsed = parseFlatReviewDecision(decision, beside);
  if (!parsed.ok) throw new RunInputError('invalid_input', parsed.message);
  return parsed.value;
}

/**
 * Sends the replies to the run, in order; the run's validators decide. A refusal throws
 * RunInputError with the run's code (replies before it were taken).
 */
export async function applyReplies(run: AgentRunHandle, replies: readonly RunReply[]): Promise<void> {
  for (const reply of replies) {
    try {
      if (reply.kind === 'answer') await run.answer(reply.answer, reply.questionId);
      else if (reply.kind === 'budget') await run.extendBudget(reply.decision, reply.requestId);
      else await run.review({ toolCallId: reply.toolCallId, argsHash: reply.argsHash }, reply.decision);
    } catch (error) {
      throw runInputError(error, run.workflowId);
    }
  }
}

/** The RunInputError a failed call on run `workflowId` means; other errors pass through. */
export function runInputError(error: unknown, workflowId: string): unknown {
  if (RunInputError.isInstance(error)) return error;
  if (NotPendingError.isInstance(error)) return new RunInputError('not_pending', error.message);
  const e = error as {
    name?: string;
    message?: string;
    code?: number;
    cause?: { type?: string; message?: string; details?: unknown; code?: number };
  };
  if (e?.name === 'WorkflowNotFoundError') return new RunInputError('unknown_run', `No run with id "${workflowId}".`);
  if (e?.cause?.type === 'HumanInputError')
    return new RunInputError(
      refusalCodeOf(e.cause.details) ?? 'invalid_input',
      e.cause.message ?? 'Refused by the run.',
    );
  if (e?.code === 8 || e?.cause?.code === 8) return new RunInputError('busy', 'The run is busy; try again shortly.');
  if (/already completed/i.test(e?.message ?? ''))
    return new RunInputError('closed', `Run "${workflowId}" has finished.`);
  return error;
}
