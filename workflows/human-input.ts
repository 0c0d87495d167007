/**
 * How a run says no to what a person sent: the checks live with each kind of human input
 * (shared/human-input/: answer.ts, review-decision.ts, budget-decision.ts); an Update validator
 * throws their refusal as a HumanInputError, before anything enters history. Deterministic.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { Checked, HumanInputRefusal } from '../shared/human-input/refusal.js';

/**
 * What a person sent cannot be used. A non-retryable ApplicationFailure of type `HumanInputError`:
 * sending the same input again cannot succeed, and a client sees why in the failed Update. Its
 * first detail is `{ code }` (refusalCodeOf reads it), so clients never parse the message.
 */
export class HumanInputError extends ApplicationFailure {
  override readonly name = 'HumanInputError';

  constructor(message: string, code: HumanInputRefusal = 'invalid_input') {
    super(message, 'HumanInputError', true, [{ code }]);
  }
}

/** The checked value; a refusal is thrown as a HumanInputError (an Update validator's no). */
export function accepted<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new HumanInputError(checked.message, checked.code);
  return checked.value;
}
