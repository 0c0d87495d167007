/**
 * ScriptExhaustedError: a scripted model was asked for a step its script does not have. It is a
 * non-retryable `ApplicationFailure` (type `ScriptExhaustedError`), so the model activity fails at
 * once without any entry in the production retry policy. Worker-side and tests.
 */
import { ApplicationFailure } from '@temporalio/common';

const exhaustedMarker: unique symbol = Symbol.for('cairn.testing.ScriptExhaustedError');

/**
 * The test or demo expected fewer model calls than the run made. Retrying cannot fix it, so it is
 * thrown as a non-retryable ApplicationFailure whose `type` is its name.
 */
export class ScriptExhaustedError extends ApplicationFailure {
  private readonly [exhaustedMarker] = true;
  override readonly name = 'ScriptExhaustedError';

  constructor(
    message: string,
    /** The script's name. */
    readonly script: string,
    /** The step index that was asked for (0-based); equals the script's length. */
    readonly step: number,
  ) {
    super(message, 'ScriptExhaustedError', true);
  }

  /** True for a ScriptExhaustedError from any copy of this module. */
  static isInstance(error: unknown): error is ScriptExhaustedError {
    return typeof error === 'object' && error !== null && exhaustedMarker in error;
  }
}
