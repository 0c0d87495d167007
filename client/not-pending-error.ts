/**
 * NotPendingError: a client asked to answer a question or decide a review that the run does not
 * have pending. Stable `name` and `code`, a `Symbol.for` marker and a static `isInstance`, as for
 * all of Cairn's thrown errors. Node-only (client side).
 */

const marker: unique symbol = Symbol.for('cairn.client.NotPendingError');

export class NotPendingError extends Error {
  private readonly [marker] = true;
  override readonly name = 'NotPendingError';

  constructor(
    readonly code: 'no_pending_question' | 'no_pending_review' | 'no_pending_budget',
    message: string,
  ) {
    super(message);
  }

  /** True for a NotPendingError from any copy of this module. */
  static isInstance(error: unknown): error is NotPendingError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
