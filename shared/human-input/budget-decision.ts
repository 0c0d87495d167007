/**
 * A person's decision on a spent budget (policy `budget.onExhausted: 'ask'`): extend the run's
 * budget by tokens and/or cost, or stop it. ONE schema, from which the type (`BudgetDecision`,
 * what the planner acts on), the parser with its error texts (every surface and the run's own
 * validator) and the JSON Schema (MCP, A2A data, the inbox) are derived. What depends on the
 * pending request (which limit was used up, its id) is the run's check. Workflow-safe, pure.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Parsed } from './review-decision.js';

/** The most tokens, and the most cost, one extension may add. */
export const MAX_EXTENSION_TOKENS = 1_000_000_000;
export const MAX_EXTENSION_COST = 1_000_000;
/** The most characters of a stop's reason. */
export const MAX_STOP_REASON_CHARS = 2_000;

export const BUDGET_DECISION_HINT =
  'A budget decision is { "type": "extend", "tokens"?, "costUsd"? } (one or both) or { "type": "stop", "reason"? }.';

/**
 * The schema, as zod (MCP's tool input). Unknown fields beside it are dropped: they never reach
 * history. Built on first use (shared/lazy-schema.ts): most runs never exhaust a budget.
 */
export const budgetDecisionSchema = lazySchema(() => {
  const extend = z
    .object({
      type: z.literal('extend'),
      tokens: z
        .number({ error: `"tokens" is a whole number from 1 to ${MAX_EXTENSION_TOKENS}.` })
        .int(`"tokens" is a whole number from 1 to ${MAX_EXTENSION_TOKENS}.`)
        .min(1, `"tokens" is a whole number from 1 to ${MAX_EXTENSION_TOKENS}.`)
        .max(MAX_EXTENSION_TOKENS, `"tokens" is a whole number from 1 to ${MAX_EXTENSION_TOKENS}.`)
        .optional()
        .describe('Tokens to add to the run budget.'),
      costUsd: z
        .number({ error: `"costUsd" is a number above 0 and at most ${MAX_EXTENSION_COST}.` })
        .positive(`"costUsd" is a number above 0 and at most ${MAX_EXTENSION_COST}.`)
        .max(MAX_EXTENSION_COST, `"costUsd" is a number above 0 and at most ${MAX_EXTENSION_COST}.`)
        .optional()
        .describe('US dollars to add to the run budget.'),
    })
    .refine((d) => d.tokens !== undefined || d.costUsd !== undefined, 'An extension names tokens, costUsd or both.');

  const stop = z.object({
    type: z.literal('stop'),
    reason: z
      .string({ error: `A stop's reason is text of at most ${MAX_STOP_REASON_CHARS} characters.` })
      .max(MAX_STOP_REASON_CHARS, `A stop's reason is text of at most ${MAX_STOP_REASON_CHARS} characters.`)
      .optional()
      .describe('Why the run stops.'),
  });
  return z.discriminatedUnion('type', [extend, stop], { error: BUDGET_DECISION_HINT });
});

/** What the planner acts on (planner/plan-budget.ts). */
export type BudgetDecision =
  | { readonly type: 'extend'; readonly tokens?: number; readonly costUsd?: number }
  | { readonly type: 'stop'; readonly reason?: string };

// The schema's output is exactly this type — each variant the same fields, of the same types — so
// a field added to one and not the other fails `tsc` here.
type Output = z.output<typeof budgetDecisionSchema>;
type Fields<D, T> = keyof Extract<D, { type: T }>;
type SameFields<T extends BudgetDecision['type']> = [Fields<Output, T>, Fields<BudgetDecision, T>] extends [
  Fields<BudgetDecision, T>,
  Fields<Output, T>,
]
  ? true
  : never;
const sameAsSchema: [Output, BudgetDecision] extends [BudgetDecision, Output]
  ? SameFields<'extend'> & SameFields<'stop'>
  : never = true;
void sameAsSchema;

/** A budget decision as a person sent it, checked for shape and bounds (a stop's reason trimmed, left out when blank). */
export function parseBudgetDecision(value: unknown): Parsed<BudgetDecision> {
  const parsed = budgetDecisionSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? BUDGET_DECISION_HINT };
  const d = parsed.data;
  if (d.type === 'stop') {
    const reason = d.reason?.trim();
    return { ok: true, value: { type: 'stop', ...(reason && { reason }) } };
  }
  return { ok: true, value: d };
}

/** The JSON Schema of a decision on a request whose `limit` was used up: an extension must add to that limit. */
export function budgetDecisionJsonSchema(limit: 'tokens' | 'cost'): Record<string, unknown> {
  const must = limit === 'tokens' ? 'tokens' : 'costUsd';
  const schema = z.toJSONSchema(budgetDecisionSchema, { io: 'input' }) as { oneOf?: Record<string, unknown>[] };
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  return {
    ...rest,
    oneOf: (schema.oneOf ?? []).map((branch) =>
      (branch.properties as { type?: { const?: string } } | undefined)?.type?.const === 'extend'
        ? { ...branch, required: ['type', must] }
        : branch,
    ),
  };
}
