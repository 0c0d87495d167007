/**
 * The request bodies the handler takes, as zod schemas, and one parse that turns a mismatch into
 * 422 `invalid_input` naming the field (400 `invalid_request` when the body is not a JSON object).
 * The run's own validators still decide what an answer or a decision may be; these check the
 * shape only. AG-UI's body is `@ag-ui/core`'s own `RunAgentInputSchema`. Node-only.
 */
import { z } from 'zod';
import type { JsonValue } from '../../shared/json/json.js';
import { REVIEW_DECISIONS, type ReviewDecisionInput, type ReviewDecisionType } from '../../workflows/contract/index.js';
import { HttpError } from './http-error.js';

const text = (what: string) => z.string({ error: `${what} is text.` });
const nonEmpty = (what: string) => text(what).refine((s) => s.trim() !== '', `${what} is non-empty text.`);

export const startRunBody = z.object({
  agent: z.unknown().optional(),
  prompt: nonEmpty('"prompt"'),
  threadId: z.unknown().optional(),
});

/** An answer: non-empty text or an object of the missing fields (the run checks which). */
export const answerValue = z.union([z.string(), z.record(z.string(), z.unknown())], {
  error: 'An answer is non-empty text or an object of the missing fields.',
});

export const answerBody = z.object({ answer: answerValue, questionId: text('"questionId"').optional() });

/** A JSON value of the body (the run checks what it must be). */
const json = () => z.unknown().transform((value) => value as JsonValue);

/** One shape per review decision (shared/tools/review-decision.ts): a new decision type fails `tsc` here until it has one. */
const DECISION_SHAPES = {
  accept: z.object({ type: z.literal('accept') }),
  edit: z.object({ type: z.literal('edit'), args: json() }),
  respond: z.object({ type: z.literal('respond'), content: json() }),
  reject: z.object({ type: z.literal('reject'), reason: text('A rejection reason').optional() }),
} satisfies { readonly [T in ReviewDecisionType]: z.ZodType<Extract<ReviewDecisionInput, { type: T }>> };

/** What a decision looks like, for error messages. */
export const DECISION_HINT = `A decision is { "type": ${REVIEW_DECISIONS.map((type) => `"${type}"`).join(' | ')}, ... }.`;

/** A review decision as a person sends it; parses to the contract's `ReviewDecisionInput`. */
export const decision: z.ZodType<ReviewDecisionInput> = z.discriminatedUnion(
  'type',
  [DECISION_SHAPES.accept, DECISION_SHAPES.edit, DECISION_SHAPES.respond, DECISION_SHAPES.reject],
  { error: DECISION_HINT },
);

/** A decision on a budget request: the run checks the amounts (whole tokens, cost above 0, the used-up limit named). */
export const budgetDecision = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('extend'),
      tokens: z.number({ error: '"tokens" is a number.' }).optional(),
      costUsd: z.number({ error: '"costUsd" is a number.' }).optional(),
    }),
    z.object({ type: z.literal('stop'), reason: text('A stop reason').optional() }),
  ],
  { error: 'A budget decision is { "type": "extend", "tokens"?, "costUsd"? } or { "type": "stop", "reason"? }.' },
);

export const budgetBody = z.object({ requestId: text('"requestId"').optional(), decision: budgetDecision });

export const reviewBody = z.object({ argsHash: text('"argsHash"').optional(), decision });

export const messageBody = z.object({
  text: nonEmpty('"text"'),
  updateId: z.string().min(1).max(200, '"updateId" is text of 1 to 200 characters.').optional(),
});

export const cancelBody = z.object({ reason: text('"reason"').optional() });

/** A UI message as the AI SDK sends it: only what the handler reads is checked. */
export const chatMessage = z.looseObject({
  id: z.string().optional(),
  role: z.string(),
  parts: z.array(z.looseObject({ type: z.string() })),
});

export const chatBody = z.looseObject({
  id: z.unknown(),
  messages: z
    .array(chatMessage, { error: '"messages" is a non-empty array of UI messages.' })
    .min(1, '"messages" is a non-empty array of UI messages.')
    .max(1_000),
  agent: z.unknown().optional(),
});

export type ChatMessage = z.infer<typeof chatMessage>;

/** `value` parsed by `schema`; 400 when it is not a JSON object, else 422 naming the first field that does not fit. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'invalid_request', `Expected ${what} as a JSON object.`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  throw new HttpError(
    422,
    'invalid_input',
    path && !issue.message.includes('"') ? `"${path}": ${issue.message}` : issue.message,
  );
}
