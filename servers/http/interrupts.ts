/**
 * What a run waits for, as interrupts a frontend can answer: the pending question, each pending
 * review, and a pending budget request (`budget:<requestId>`: extend by tokens and/or cost, or stop). An interrupt's id binds what the workflow will check: `question:<id>` names the
 * clarification; `review:<toolCallId>:<argsHash>` the tool call and the digest of the arguments a
 * person saw. A decision sent back under that id, to any instance, days later, carries the hash to
 * the workflow's own validator: other arguments are refused as stale, a repeat is a no-op.
 * Used by the AG-UI interrupts, the AI SDK approval ids and the inbox alike. Node-only.
 */
import type { PendingReview } from '../../shared/human-input/pending-review.js';
import type { BudgetRequest, RunState } from '../../workflows/contract/index.js';
import type { RunUsage } from '../../shared/model/model-usage.js';
import { scoped, unscoped } from './run-scope.js';

export type PendingInterrupt =
  | {
      readonly kind: 'question';
      readonly id: string;
      readonly questionId: string;
      readonly question: string;
      /** The tool whose call lacks fields, the fields, and a valid input of it. */
      readonly tool?: string;
      readonly missingFields?: readonly string[];
      readonly exampleInput?: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'review'; readonly id: string; readonly review: PendingReview }
  | {
      readonly kind: 'budget';
      readonly id: string;
      /** What is asked: which limit is used up, the limits in force and what was used when asked. */
      readonly request: BudgetRequest;
      /** The run's usage so far (tokens in and out, cost, calls). */
      readonly usage?: RunUsage;
      /** What people added so far. */
      readonly extended?: { readonly tokens: number; readonly costUsd: number };
    };

export type InterruptTarget =
  | { readonly kind: 'question'; readonly questionId: string }
  | { readonly kind: 'review'; readonly toolCallId: string; readonly argsHash: string }
  | { readonly kind: 'budget'; readonly requestId: string };

export function questionInterruptId(questionId: string): string {
  return `question:${questionId}`;
}

export function reviewInterruptId(review: Pick<PendingReview, 'toolCallId' | 'argsHash'>): string {
  return `review:${review.toolCallId}:${review.argsHash}`;
}

export function budgetInterruptId(requestId: string): string {
  return `budget:${requestId}`;
}

/**
 * The interrupts of a run's state, the question first, a budget request last. With the run's
 * `scope` (run-scope.ts), question, tool call and budget request ids are the thread's: unique across its runs.
 */
export function pendingInterrupts(state: RunState, scope?: string): PendingInterrupt[] {
  const out: PendingInterrupt[] = [];
  const q = state.clarification;
  if (q)
    out.push({
      kind: 'question',
      id: questionInterruptId(scoped(q.id, scope)),
      questionId: scoped(q.id, scope),
      question: q.question,
      ...(q.tool && { tool: q.tool }),
      ...(q.missingFields && { missingFields: q.missingFields }),
      ...(q.exampleInput && { exampleInput: q.exampleInput }),
    });
  for (const own of state.reviews) {
    const review = scope ? { ...own, toolCallId: scoped(own.toolCallId, scope) } : own;
    out.push({ kind: 'review', id: reviewInterruptId(review), review });
  }
  const budget = state.budget;
  if (budget?.pending)
    out.push({
      kind: 'budget',
      id: budgetInterruptId(scoped(budget.pending.id, scope)),
      request: budget.pending,
      usage: budget.usage,
      extended: budget.extended,
    });
  return out;
}

/**
 * What an interrupt id addresses in the run of `scope`, with the run's own ids; `stale` when it
 * names another run of the thread; undefined when it is not one of Cairn's.
 */
export function parseInterruptId(id: unknown, scope?: string): InterruptTarget | 'stale' | undefined {
  if (typeof id !== 'string' || id.length > 500) return undefined;
  const own = (scopedId: string) => unscoped(scopedId, scope);
  if (id.startsWith('question:') && id.length > 9) {
    const q = own(id.slice(9));
    return q === 'stale' ? q : { kind: 'question', questionId: q.id };
  }
  if (id.startsWith('budget:') && id.length > 7) {
    const request = own(id.slice(7));
    return request === 'stale' ? request : { kind: 'budget', requestId: request.id };
  }
  const match = /^review:(.+):([^:]+)$/.exec(id);
  if (!match) return undefined;
  const call = own(match[1]!);
  return call === 'stale' ? call : { kind: 'review', toolCallId: call.id, argsHash: match[2]! };
}
