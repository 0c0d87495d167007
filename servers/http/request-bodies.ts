/**
 * The request bodies the handler takes, as zod schemas, and one parse that turns a mismatch into
 * 422 `invalid_input` naming the field (400 `invalid_request` when the body is not a JSON object).
 * The run's own validators still decide what an answer or a decision may be; these check the
 * shape only. AG-UI's body is `@ag-ui/core`'s own `RunAgentInputSchema`. Node-only.
 */
import { z } from 'zod';
import { parseBudgetDecision, type BudgetDecision } from '../../shared/human-input/budget-decision.js';
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

/** A decision on a budget request: the one parser of shared/human-input/budget-decision.ts (the run checks the limit used up). */
export const budgetDecision = z.unknown().transform((value, ctx): BudgetDecision => {
  const parsed = parseBudgetDecision(value);
  if (parsed.ok) return parsed.value;
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

export const budgetBody = z.object({ requestId: text('"requestId"').optional(), decision: budgetDecision });

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
