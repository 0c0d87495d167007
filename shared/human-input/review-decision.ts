/**
 * A person's decision on a tool call held for review (seed 003): ONE schema — the list
 * `REVIEW_DECISIONS` and its table `CARRIES` — from which
 * the rest is derived — the wire form (`ReviewDecisionInput`) and its parser with its error texts
 * (`parseReviewDecision`, used by every surface: HTTP, AG-UI, chat, A2A, MCP, the CLI, and the run's
 * own validator), the flat form A2A and MCP accept (`{ decision: "edit", args }`), the JSON Schema
 * (MCP, A2A data, the inbox form), what the planner acts on (`ReviewDecision`: an edit carries the
 * hash of its checked arguments) and what a run keeps of a decision it took (`DecidedReview`). A new
 * decision type added to the list fails `tsc` in every place that must handle it. No dependencies
 * (the CLI's `init` loads it before a project has any). Workflow-safe, pure.
 */
import type { JsonValue } from '../json/json.js';

/** `accept` (run it), `edit` (run it with other arguments), `respond` (the reviewer's content is the result), `reject` (the model is told why). */
export const REVIEW_DECISIONS = ['accept', 'edit', 'respond', 'reject'] as const;
export type ReviewDecisionType = (typeof REVIEW_DECISIONS)[number];

interface Carried {
  readonly field: string;
  /** The field in a person's words. */
  readonly name: string;
  readonly value: 'json' | 'text';
  readonly required: boolean;
  /** What the field holds, for error texts and schema descriptions. */
  readonly what: string;
}

/**
 * What each decision carries beside its `type`: nothing, or one field — a JSON value or text,
 * required or not — with what it is, in a person's words. With the list above, the one schema
 * of a review decision: a type added to the list fails `tsc` here until it has its row.
 */
const CARRIES = {
  /** Run the call as it is. */
  accept: undefined,
  /** Run it with other arguments. */
  edit: { field: 'args', name: 'arguments', value: 'json', required: true, what: 'the new arguments' },
  /** Do not run it: the reviewer's content is the result the model gets. */
  respond: { field: 'content', name: 'content', value: 'json', required: true, what: 'the result to give the model' },
  /** Do not run it: the model is told it was rejected, and why. */
  reject: { field: 'reason', name: 'reason', value: 'text', required: false, what: 'why not' },
} as const satisfies { readonly [T in ReviewDecisionType]: Carried | undefined };

type Carries = typeof CARRIES;

/** What a decision of type `T` carries, as a person sends it. */
type SentOf<C> = C extends Carried
  ? C['required'] extends true
    ? { readonly [K in C['field']]: C['value'] extends 'json' ? JsonValue : string }
    : { readonly [K in C['field']]?: C['value'] extends 'json' ? JsonValue : string }
  : Readonly<Record<never, never>>;

/** One variant per decision type, discriminated by `type`. */
type Family<Extra extends Partial<Record<ReviewDecisionType, object>>> = {
  [T in ReviewDecisionType]: { readonly type: T } & SentOf<Carries[T]> &
    (T extends keyof Extra ? Extra[T] : Readonly<Record<never, never>>);
}[ReviewDecisionType];

/** A decision as a person sends it (`reviewToolCallUpdate`, `run.review`, HTTP, A2A, MCP, the CLI). */
export type ReviewDecisionInput = Family<Record<never, never>>;

/** A decision as the planner acts on it (planner/plan-human.ts, `planReviewed`): an edit's arguments were checked and hashed. */
export type ReviewDecision = Family<{ readonly edit: { readonly argsHash: string } }>;

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

/** The field a decision type carries, if any (the CLI's argument, A2A's and MCP's flat form). */
export function carriedBy(type: ReviewDecisionType): Carried | undefined {
  return CARRIES[type];
}

/** What a decision looks like, for error texts. */
export const DECISION_HINT = `A decision is { "type": ${REVIEW_DECISIONS.map((type) => `"${type}"`).join(' | ')}, ... }: ${REVIEW_DECISIONS.map(
  (type) => {
    const c = CARRIES[type] as Carried | undefined;
    return c ? `${type} with "${c.field}"${c.required ? '' : '?'} (${c.what})` : `${type}`;
  },
).join(', ')}.`;

/** A parse: the value, or the first problem in a person's words. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/**
 * A review decision as a person sent it, checked for shape: the decision with only what it carries
 * (a rejection's reason trimmed, and left out when blank), or the first problem. What the run
 * checks beyond shape (the review allows it, the edited arguments fit the tool) is the run's.
 */
export function parseReviewDecision(value: unknown): Parsed<ReviewDecisionInput> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: DECISION_HINT };
  const sent = value as Record<string, unknown>;
  const type = sent.type;
  if (!isReviewDecisionType(type)) return { ok: false, message: DECISION_HINT };
  const c = CARRIES[type] as Carried | undefined;
  // Only what the type carries is taken: fields beside it never reach history.
  if (!c) return { ok: true, value: { type } as ReviewDecisionInput };
  const field = Object.hasOwn(sent, c.field) ? sent[c.field] : undefined;
  if (c.value === 'text') {
    if (field !== undefined && typeof field !== 'string')
      return { ok: false, message: `${type === 'reject' ? 'A rejection' : `A ${type}`}'s "${c.field}" is text.` };
    const text = field?.trim();
    if (c.required && !text)
      return { ok: false, message: `A ${type} carries ${c.what}: { "type": "${type}", "${c.field}": … }.` };
    return { ok: true, value: (text ? { type, [c.field]: text } : { type }) as ReviewDecisionInput };
  }
  // JSON (the body was parsed from JSON, so it is JSON): present, and not empty text.
  if (c.required && (field === undefined || field === ''))
    return {
      ok: false,
      message: `${type === 'edit' ? 'An edit' : `A ${type}`} carries ${c.what}: { "type": "${type}", "${c.field}": … }.`,
    };
  return { ok: true, value: (field === undefined ? { type } : { type, [c.field]: field }) as ReviewDecisionInput };
}

/**
 * A review as REST sends it, for the call its path names: `{ argsHash?, decision }`, the decision
 * nested; `argsHash` (the arguments the reviewer saw) is the run's to check.
 */
export function parseReviewRequest(
  body: Readonly<Record<string, unknown>>,
): Parsed<{ readonly argsHash?: string; readonly decision: ReviewDecisionInput }> {
  const argsHash = Object.hasOwn(body, 'argsHash') ? body.argsHash : undefined;
  if (argsHash !== undefined && typeof argsHash !== 'string') return { ok: false, message: '"argsHash" is text.' };
  const decision = parseReviewDecision(Object.hasOwn(body, 'decision') ? body.decision : undefined);
  if (!decision.ok) return decision;
  return { ok: true, value: { ...(argsHash !== undefined && { argsHash }), decision: decision.value } };
}

/**
 * A decision in A2A's and MCP's flat form, `{ decision: "edit", args, … }` beside the call's
 * `toolCallId` and `argsHash`, or nested, `{ decision: { type: "edit", args } }`.
 */
export function parseFlatReviewDecision(
  decision: unknown,
  beside: Readonly<Record<string, unknown>>,
): Parsed<ReviewDecisionInput> {
  if (typeof decision === 'string' && !isReviewDecisionType(decision))
    return { ok: false, message: `"decision" is one of ${REVIEW_DECISIONS.join(', ')}, or { type, … }.` };
  return parseReviewDecision(typeof decision === 'string' ? { ...beside, type: decision } : decision);
}

/** The fields the decision types carry, once each, with the type that carries it (MCP's flat tool input). */
export function carriedFields(): readonly (Carried & { readonly by: ReviewDecisionType })[] {
  return REVIEW_DECISIONS.flatMap((by) => {
    const c = CARRIES[by] as Carried | undefined;
    return c ? [{ ...c, by }] : [];
  });
}

/**
 * The JSON Schema of a review decision, `{ type, … }`: one variant per type `allowed`, in
 * REVIEW_DECISIONS' order; `fields` gives a carried field a schema of its own (an edit's `args`: the tool's).
 */
export function reviewDecisionJsonSchema(
  allowed: readonly ReviewDecisionType[] = REVIEW_DECISIONS,
  fields: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return {
    oneOf: REVIEW_DECISIONS.filter((type) => allowed.includes(type)).map((type) => {
      const c = CARRIES[type] as Carried | undefined;
      return {
        type: 'object',
        properties: {
          type: { const: type },
          ...(c && {
            [c.field]: Object.hasOwn(fields, c.field)
              ? fields[c.field]
              : c.value === 'text'
                ? { type: 'string', description: c.what }
                : { description: c.what },
          }),
        },
        required: c?.required ? ['type', c.field] : ['type'],
      };
    }),
  };
}

/** The decisions a pending review allows (shared/tools/review-config.ts; reviews carried from before the config existed allow all). */
export function allowedDecisions(review: {
  readonly allowed?: readonly ReviewDecisionType[];
}): readonly ReviewDecisionType[] {
  return review.allowed ?? REVIEW_DECISIONS;
}

/** True for a known decision type. */
export function isReviewDecisionType(value: unknown): value is ReviewDecisionType {
  return typeof value === 'string' && Object.hasOwn(CARRIES, value);
}
