/**
 * Validators for what humans send: run synchronously in Update validators, so a refused answer
 * or decision throws before anything enters history. Deterministic.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { AnyTool } from '../shared/tools/define-tool.js';
import {
  allowedDecisions,
  parseReviewDecision,
  type DecidedReview,
  type ReviewDecision,
  type ReviewDecisionInput,
} from '../shared/human-input/review-decision.js';
import { argsHash } from '../shared/identity/hash.js';
import { assertNever } from '../shared/assert-never.js';
import { checkToolCall } from '../shared/guards/validate-arguments.js';
import type { PendingClarification, PendingReview } from '../planner/index.js';
import type { ClarificationAnswer, ReviewInput } from './contract/human-messages.js';
import type { HumanInputRefusal } from '../shared/failures/human-input-refusal.js';

/** The largest answer or review decision a person may send, in characters (of JSON for objects). */
export const MAX_HUMAN_INPUT_CHARS = 20_000;
const MAX_ANSWER_CHARS = MAX_HUMAN_INPUT_CHARS;

/**
 * What a person sent cannot be used. A non-retryable ApplicationFailure of type `HumanInputError`:
 * sending the same input again cannot succeed, and a client sees why in the failed Update. Its
 * first detail is `{ code }` (refusalCodeOf reads it), so clients never parse the message.
 */
export class HumanInputError extends ApplicationFailure {
  override readonly name = 'HumanInputError';

  constructor(message: string, code: HumanInputRefusal = 'invalid_input') {
    super(message, 'HumanInputError', true, [{ code }]);
  }
}

/**
 * Checks an answer to the pending question. An object answer to a question about a tool's missing
 * fields is held to the schema the run advertises for it: exactly those fields, each valid under
 * the tool's own input schema for it (type, pattern, enum...). Text is always a possible answer
 * (the model reads it). `tools`: the run's tools by name (absent: shape checks only).
 */
export function validateAnswer(
  pending: PendingClarification | null,
  input: ClarificationAnswer,
  tools?: ReadonlyMap<string, AnyTool>,
): void {
  if (!pending) throw new HumanInputError('No clarification is pending.', 'not_pending');
  if (!input || typeof input !== 'object') throw new HumanInputError('Expected { id, answer }.');
  if (input.id !== pending.id)
    throw new HumanInputError(
      `Unknown clarification id "${String(input.id)}"; the pending one is "${pending.id}".`,
      'not_pending',
    );
  const a: unknown = input.answer;
  if (typeof a === 'string') {
    if (a.trim() === '') throw new HumanInputError('The answer is empty.');
    if (a.length > MAX_ANSWER_CHARS)
      throw new HumanInputError(`The answer is longer than ${MAX_ANSWER_CHARS} characters.`);
    return;
  }
  if (a && typeof a === 'object' && !Array.isArray(a) && Object.keys(a).length > 0) {
    if (JSON.stringify(a).length > MAX_ANSWER_CHARS)
      throw new HumanInputError(`The answer is larger than ${MAX_ANSWER_CHARS} characters.`);
    checkFields(pending, a as Record<string, unknown>, tools);
    return;
  }
  throw new HumanInputError(
    `The answer must be non-empty text or an object of fields, not ${Array.isArray(a) ? 'an array' : typeof a}.`,
  );
}

/** The answer's fields against the question's missing fields and the tool's schema for each. */
function checkFields(
  pending: PendingClarification,
  answer: Record<string, unknown>,
  tools: ReadonlyMap<string, AnyTool> | undefined,
): void {
  const missing = pending.missingFields;
  if (!missing?.length) return;
  const absent = missing.filter((f) => !Object.hasOwn(answer, f));
  if (absent.length > 0)
    throw new HumanInputError(
      `The answer lacks ${absent.map((f) => `"${f}"`).join(', ')}: answer with ${missing.map((f) => `"${f}"`).join(', ')}, or in words.`,
    );
  const extra = Object.keys(answer).filter((k) => !missing.includes(k));
  if (extra.length > 0)
    throw new HumanInputError(
      `The answer has ${extra.map((f) => `"${f.slice(0, 100)}"`).join(', ')}, which the question did not ask; it asks for ${missing.map((f) => `"${f}"`).join(', ')}.`,
    );
  const tool = pending.tool === undefined ? undefined : tools?.get(pending.tool);
  if (!tool) return;
  for (const field of missing) {
    const schema = fieldSchema(tool.input, field);
    if (!schema) continue;
    const checked = schema.safeParse(answer[field]);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new HumanInputError(`The answer's "${field}" is invalid for ${tool.name}: ${issue?.message ?? 'invalid'}.`);
    }
  }
}

interface FieldParser {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { message: string }[] } };
}

/** The zod schema of the (dotted) field `path` of an object schema; undefined when it is not one. */
function fieldSchema(input: unknown, path: string): FieldParser | undefined {
  let at: unknown = input;
  for (const key of path.split('.')) {
    const shape = (at as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (!shape || typeof shape !== 'object' || !Object.hasOwn(shape, key)) return undefined;
    at = shape[key];
  }
  return typeof (at as FieldParser | undefined)?.safeParse === 'function' ? (at as FieldParser) : undefined;
}

/**
 * Checks one review decision; returns the planner's form of it, with the arguments hash it is about
 * and the decision as sent. A decision for other arguments (stale hash) fails closed; once a
 * decision counted, any other — the same decision again from someone else included — is refused
 * `already_decided`, naming the one that counted (`repeat: 'ignore'` makes the same decision a no-op
 * instead: the handler's own check, which replays older histories where a repeat was taken).
 */
export function validateReview(
  pending: readonly PendingReview[],
  decided: Readonly<Record<string, DecidedReview>>,
  tools: ReadonlyMap<string, AnyTool>,
  input: ReviewInput,
  repeat: 'refuse' | 'ignore' = 'refuse',
): DecidedReview | undefined {
  if (!input || typeof input !== 'object' || !input.decision || typeof input.toolCallId !== 'string')
    throw new HumanInputError('Expected { toolCallId, argsHash, decision }.');
  // Own keys only: a toolCallId of `__proto__` or `constructor` names no decision.
  const previous = Object.hasOwn(decided, input.toolCallId) ? decided[input.toolCallId] : undefined;
  const review = pending.find((r) => r.toolCallId === input.toolCallId);
  if (!review && !previous)
    throw new HumanInputError(`No review is pending for tool call "${String(input.toolCallId)}".`, 'not_pending');
  const expected = review?.argsHash ?? previous!.argsHash;
  if (input.argsHash !== expected)
    throw new HumanInputError(
      `Stale decision: tool call ${input.toolCallId} has arguments ${expected}, not ${String(input.argsHash)}.`,
      'stale_review',
    );
  // Bounded first: the decision enters history, the state and the transcript.
  const sent = jsonText(input.decision);
  if (sent === undefined || sent.length > MAX_HUMAN_INPUT_CHARS)
    throw new HumanInputError(
      `The decision is larger than ${MAX_HUMAN_INPUT_CHARS} characters of JSON (or is not JSON); send a shorter one.`,
    );
  if (previous) {
    if (previous.sent === sent && repeat === 'ignore') return undefined;
    throw new HumanInputError(
      `Tool call ${input.toolCallId} was already decided: ${previous.sent.slice(0, 300)} counted.`,
      'already_decided',
    );
  }
  return { argsHash: expected, decision: toDecision(review!, tools, input.decision), sent };
}

function toDecision(
  review: PendingReview,
  tools: ReadonlyMap<string, AnyTool>,
  sent: ReviewDecisionInput,
): ReviewDecision {
  const parsed = parseReviewDecision(sent);
  if (!parsed.ok) throw new HumanInputError(parsed.message);
  const d = parsed.value;
  const allowed = allowedDecisions(review);
  if (!allowed.includes(d.type))
    throw new HumanInputError(`${review.name} does not allow "${d.type}" in review; allowed: ${allowed.join(', ')}.`);
  switch (d.type) {
    case 'accept':
    case 'reject':
    case 'respond':
      return d;
    case 'edit': {
      const checked = checkToolCall(
        { name: review.name, arguments: JSON.stringify(d.args ?? null) },
        [...tools.values()],
        { toolCallId: review.toolCallId },
      );
      if (checked.failure) {
        const message = checked.failure.status === 'error' ? checked.failure.error.message : 'invalid arguments';
        throw new HumanInputError(`The edited arguments are invalid for ${review.name}: ${message}`);
      }
      return { type: 'edit', args: checked.call.args, argsHash: argsHash(checked.call.args) };
    }
    default:
      return assertNever(d, 'review decision');
  }
}

/** `value` as JSON text, or undefined when it has none (too deep for the stack, a cycle). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
