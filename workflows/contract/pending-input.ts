/**
 * What a run waits for, as structured data a program can act on: the question with the JSON
 * Schema of its answer, the held calls with their arguments, hash and allowed decisions, a budget
 * request with the schema of its decision — and one line per thing asked, for people. Read off
 * the run's state, so the workflow (its push notifications) and every server (A2A, MCP, the inbox)
 * say the same. Part of the run's contract (workflows/contract/index.ts): pure, workflow-safe.
 */
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { allowedDecisions, type ReviewDecisionType } from '../../shared/human-input/review-decision.js';
import { budgetDecisionJsonSchema } from '../../shared/human-input/budget-decision.js';
import type { BudgetRequest } from '../../planner/index.js';
import type { RunState } from './run-state.js';

/** The question a run asks, with the schema its answer must fit. */
export interface PendingQuestion {
  readonly id: string;
  readonly question: string;
  /** JSON Schema of the answer: an object of the missing fields, or text. */
  readonly schema: JsonObject;
  readonly tool?: string;
  readonly missingFields?: readonly string[];
  readonly exampleInput?: JsonObject;
}

/** A tool call held for a person's decision. */
export interface HeldCall {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
  /** Send it back with the decision: a decision about other arguments is refused as stale. */
  readonly argsHash: string;
  readonly allowed: readonly ReviewDecisionType[];
  readonly description?: string;
}

/** The run's budget is spent: a person extends it or stops the run (policy `budget.onExhausted: 'ask'`). */
export interface PendingBudget extends BudgetRequest {
  /** JSON Schema of the reply's `budget` decision. */
  readonly schema: JsonObject;
}

/** What a run needs from a person before it can go on. */
export interface PendingInput {
  readonly question: PendingQuestion | null;
  readonly reviews: readonly HeldCall[];
  readonly budget: PendingBudget | null;
}

/** The JSON Schema of an answer to `question`: the missing fields as an object, else text. */
export function answerSchema(question: {
  readonly missingFields?: readonly string[];
  readonly exampleInput?: JsonObject;
  readonly schema?: unknown;
}): JsonObject {
  if (question.schema && typeof question.schema === 'object' && !Array.isArray(question.schema))
    return question.schema as JsonObject;
  const fields = question.missingFields ?? [];
  if (fields.length === 0) return { type: 'string', minLength: 1, description: 'The answer, as text.' };
  const properties: JsonObject = {};
  for (const field of fields) {
    const example = question.exampleInput?.[field];
    properties[field] = {
      type: typeof example === 'number' ? 'number' : typeof example === 'boolean' ? 'boolean' : 'string',
    };
  }
  return { type: 'object', properties, required: [...fields] };
}

/** What `state` waits for, or undefined when it waits for nobody. */
export function pendingInput(state: RunState): PendingInput | undefined {
  const q = state.clarification;
  const budget = state.budget?.pending ?? null;
  if (!q && state.reviews.length === 0 && !budget) return undefined;
  return {
    budget: budget && {
      ...budget,
      schema: (budgetDecisionSchema(budget).properties as { decision: JsonObject }).decision,
    },
    question: q
      ? {
          id: q.id,
          question: q.question,
          schema: answerSchema(q),
          ...(q.tool !== undefined && { tool: q.tool }),
          ...(q.missingFields && { missingFields: q.missingFields }),
          ...(q.exampleInput && { exampleInput: q.exampleInput }),
        }
      : null,
    reviews: state.reviews.map((r) => ({
      toolCallId: r.toolCallId,
      name: r.name,
      args: r.args,
      argsHash: r.argsHash,
      allowed: allowedDecisions(r),
      ...(r.description !== undefined && { description: r.description }),
    })),
  };
}

/** One line per thing asked, for people and models reading a text part. */
export function describePending(pending: PendingInput): string {
  const lines: string[] = [];
  if (pending.question) lines.push(`Question ${pending.question.id}: ${pending.question.question}`);
  const b = pending.budget;
  if (b)
    lines.push(
      `Budget ${b.id}: the run spent its ${b.limit === 'tokens' ? `tokens (${b.usedTokens} of ${b.maxTokens})` : `cost (${b.usedCostUsd} of ${b.maxCostUsd} USD)`}; reply { budget: { type: "extend", ${b.limit === 'tokens' ? 'tokens' : 'costUsd'}: … } } or { budget: { type: "stop" } }.`,
    );
  for (const r of pending.reviews)
    lines.push(
      `Review ${r.toolCallId}: ${r.name}(${JSON.stringify(r.args)}) awaits a decision (${r.allowed.join(', ')})${r.description ? ` — ${r.description}` : ''}; argsHash ${r.argsHash}.`,
    );
  return lines.join('\n');
}

/**
 * The schema of a decision on a budget request, `{ decision }`: extend by tokens and/or cost (the
 * limit used up must be extended), or stop (shared/human-input/budget-decision.ts).
 */
export function budgetDecisionSchema(request: Pick<BudgetRequest, 'limit'>): Record<string, unknown> {
  return {
    type: 'object',
    properties: { decision: budgetDecisionJsonSchema(request.limit) },
    required: ['decision'],
  };
}
