/**
 * What a run waits for, as interrupts a frontend can answer: the pending question, and each
 * pending review. An interrupt's id binds what the workflow will check: `question:<id>` names the
 * clarification; `review:<toolCallId>:<argsHash>` the tool call and the digest of the arguments a
 * person saw. A decision sent back under that id, to any instance, days later, carries the hash to
 * the workflow's own validator: other arguments are refused as stale, a repeat is a no-op.
 * Used by the AG-UI interrupts, the AI SDK approval ids and the inbox alike. Node-only.
 */
import type { PendingReview } from '../../planner/index.js';
import type { RunState } from '../../workflows/messages.js';

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
  | { readonly kind: 'review'; readonly id: string; readonly review: PendingReview };

export type InterruptTarget =
  | { readonly kind: 'question'; readonly questionId: string }
  | { readonly kind: 'review'; readonly toolCallId: string; readonly argsHash: string };

export function questionInterruptId(questionId: string): string {
  return `question:${questionId}`;
}

export function reviewInterruptId(review: Pick<PendingReview, 'toolCallId' | 'argsHash'>): string {
  return `review:${review.toolCallId}:${review.argsHash}`;
}

/** The interrupts of a run's state, the question first. */
export function pendingInterrupts(state: RunState): PendingInterrupt[] {
  const out: PendingInterrupt[] = [];
  const q = state.clarification;
  if (q)
    out.push({
      kind: 'question',
      id: questionInterruptId(q.id),
      questionId: q.id,
      question: q.question,
      ...(q.tool && { tool: q.tool }),
      ...(q.missingFields && { missingFields: q.missingFields }),
      ...(q.exampleInput && { exampleInput: q.exampleInput }),
    });
  for (const review of state.reviews) out.push({ kind: 'review', id: reviewInterruptId(review), review });
  return out;
}

/** What an interrupt id addresses; undefined when it is not one of Cairn's. */
export function parseInterruptId(id: unknown): InterruptTarget | undefined {
  if (typeof id !== 'string' || id.length > 500) return undefined;
  if (id.startsWith('question:') && id.length > 9) return { kind: 'question', questionId: id.slice(9) };
  const match = /^review:(.+):([^:]+)$/.exec(id);
  return match ? { kind: 'review', toolCallId: match[1]!, argsHash: match[2]! } : undefined;
}
