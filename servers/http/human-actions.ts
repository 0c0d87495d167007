/**
 * What a person sends a run over HTTP, handed to the client API (`AgentRunHandle.answer`,
 * `.review`, `.extendBudget`, `.cancel`): the handler checks only the shape; the run's own validators decide
 * (stale arguments, a repeat, an invalid answer or edit), and a refusal leaves no trace in the
 * run. Used by the REST endpoints, AG-UI resumes and AI SDK approval responses alike. Node-only.
 */
import type { JsonValue } from '../../shared/json/json.js';
import type { BudgetDecision, ReviewDecisionInput } from '../../workflows/contract/index.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { HttpError } from './http-error.js';
import type { InterruptTarget } from './interrupts.js';
import { answerValue } from './request-bodies.js';
import { parseBudgetDecision } from '../../shared/human-input/budget-decision.js';
import { parseReviewDecision } from '../../shared/human-input/review-decision.js';

export function decisionOf(value: unknown): ReviewDecisionInput {
  const parsed = parseReviewDecision(value);
  if (!parsed.ok) throw new HttpError(422, 'invalid_input', parsed.message);
  // What the schema read, not what was sent: fields beside it never reach the run's history.
  return parsed.value;
}

export function answerOf(value: unknown): JsonValue {
  if (!answerValue.safeParse(value).success)
    throw new HttpError(422, 'invalid_input', 'An answer is non-empty text or an object of the missing fields.');
  return value as JsonValue;
}

/** A budget decision's shape; the run's validator checks the amounts against the pending request. */
export function budgetDecisionOf(value: unknown): BudgetDecision {
  const parsed = parseBudgetDecision(value);
  if (!parsed.ok) throw new HttpError(422, 'invalid_input', parsed.message);
  return parsed.value;
}

/** Sends a resolved interrupt's payload to the run: an answer, a review decision (default accept), or a budget decision (`{ decision }`). */
export async function resolveInterrupt(run: AgentRunHandle, target: InterruptTarget, payload: unknown): Promise<void> {
  if (target.kind === 'question') {
    const answer =
      typeof payload === 'object' && payload !== null && !Array.isArray(payload) && 'answer' in payload
        ? (payload as { answer: unknown }).answer
        : payload;
    await run.answer(answerOf(answer), target.questionId);
    return;
  }
  if (target.kind === 'budget') {
    const decision =
      typeof payload === 'object' && payload !== null && !Array.isArray(payload) && 'decision' in payload
        ? (payload as { decision: unknown }).decision
        : payload;
    await run.extendBudget(budgetDecisionOf(decision), target.requestId);
    return;
  }
  const decision = payload === undefined || payload === null ? { type: 'accept' as const } : decisionOf(payload);
  await run.review({ toolCallId: target.toolCallId, argsHash: target.argsHash }, decision);
}

/** A cancelled interrupt: a review is rejected; a budget request is stopped; a question nobody will answer cancels the run. */
export async function cancelInterrupt(run: AgentRunHandle, target: InterruptTarget, reason: string): Promise<void> {
  if (target.kind === 'budget') await run.extendBudget({ type: 'stop', reason }, target.requestId);
  else if (target.kind === 'review')
    await run.review({ toolCallId: target.toolCallId, argsHash: target.argsHash }, { type: 'reject', reason });
  else await run.cancel(reason);
}
