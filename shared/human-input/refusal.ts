/**
 * Why a run refused what a person sent (an answer, a review decision, a message): a stable code,
 * carried as the first detail of the workflow's `HumanInputError` so clients map it without
 * reading message text; and `Checked`, what the run's checks of human input give (answer.ts,
 * review-decision.ts). Plain data; workflow-safe.
 */

/** `not_pending`: nothing is pending under that id; `stale_review`: the arguments changed;
 * `already_decided`: a different answer or decision was already taken; `invalid_input`: the input is unusable. */
export type HumanInputRefusal = 'not_pending' | 'stale_review' | 'already_decided' | 'invalid_input';

/** Refusals meaning "this no longer applies" (HTTP 409); `invalid_input` is the sender's mistake (422). */
export const CONFLICT_REFUSALS: readonly HumanInputRefusal[] = ['not_pending', 'stale_review', 'already_decided'];

const REFUSALS: readonly string[] = [...CONFLICT_REFUSALS, 'invalid_input'];

/**
 * The refusal code of a failure's `details` (a decoded ApplicationFailure's, or its JSON);
 * undefined when it carries none (not a HumanInputError).
 */
export function refusalCodeOf(details: unknown): HumanInputRefusal | undefined {
  const first = Array.isArray(details) ? (details[0] as { code?: unknown } | null | undefined) : undefined;
  const code = first?.code;
  return REFUSALS.includes(code as string) ? (code as HumanInputRefusal) : undefined;
}

/** A refusal: the reason in a person's words, and its code. */
export interface Refusal {
  readonly ok: false;
  readonly message: string;
  readonly code: HumanInputRefusal;
}

/** What a run's check of human input gives: the value to take, or why it is refused. */
export type Checked<T> = { readonly ok: true; readonly value: T } | Refusal;

export function refuse(message: string, code: HumanInputRefusal = 'invalid_input'): Refusal {
  return { ok: false, message, code };
}
