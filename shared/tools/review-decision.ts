/**
 * A person's decision on a tool call held for review (seed 003), as one family derived from
 * `REVIEW_DECISIONS`: what a person sends (`ReviewDecisionInput`, the wire form every client and
 * surface sends), what the planner acts on (`ReviewDecision`: an edit carries the hash of its
 * checked arguments), and what a run keeps of a decision it took (`DecidedReview`). A new decision
 * type added to the list fails `tsc` until each form says what it carries. Workflow-safe, pure.
 */
import type { JsonValue } from '../json/json.js';

/** `accept` (run it), `edit` (run it with other arguments), `respond` (the reviewer's content is the result), `reject` (the model is told why). */
export const REVIEW_DECISIONS = ['accept', 'edit', 'respond', 'reject'] as const;
export type ReviewDecisionType = (typeof REVIEW_DECISIONS)[number];

/** What each decision carries beside its `type`, as a person sends it. */
interface SentFields {
  readonly accept: Readonly<Record<never, never>>;
  readonly edit: { readonly args: JsonValue };
  readonly respond: { readonly content: JsonValue };
  readonly reject: { readonly reason?: string };
}

/** As the planner takes it: an edit's arguments were checked against the tool, and hashed. */
interface TakenFields extends SentFields {
  readonly edit: { readonly args: JsonValue; readonly argsHash: string };
}

/** One variant per decision type, discriminated by `type`. */
type Family<Fields extends Record<ReviewDecisionType, object>> = {
  [T in ReviewDecisionType]: { readonly type: T } & Fields[T];
}[ReviewDecisionType];

/** A decision as a person sends it (`reviewToolCallUpdate`, `run.review`, HTTP, A2A, MCP, the CLI). */
export type ReviewDecisionInput = Family<SentFields>;

/** A decision as the planner acts on it (planner/plan-human.ts, `planReviewed`). */
export type ReviewDecision = Family<TakenFields>;

/** The variant of `T`, of either form. */
export type ReviewDecisionOf<
  T extends ReviewDecisionType,
  D extends ReviewDecisionInput | ReviewDecision = ReviewDecision,
> = Extract<D, { readonly type: T }>;

/** A decision a run took, kept (and carried across continue-as-new) so a repeat is recognised. */
export interface DecidedReview {
  /** The hash of the arguments the decision was about. */
  readonly argsHash: string;
  readonly decision: ReviewDecision;
  /** The decision as the person sent it, as JSON text: a repeat is recognised even after the review closed. */
  readonly sent: string;
}

/** The decisions a pending review allows (shared/tools/review-config.ts; reviews carried from before the config existed allow all). */
export function allowedDecisions(review: {
  readonly allowed?: readonly ReviewDecisionType[];
}): readonly ReviewDecisionType[] {
  return review.allowed ?? REVIEW_DECISIONS;
}

/** True for a known decision type. */
export function isReviewDecisionType(value: unknown): value is ReviewDecisionType {
  return (REVIEW_DECISIONS as readonly unknown[]).includes(value);
}
