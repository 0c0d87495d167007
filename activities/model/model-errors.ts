/**
 * The errors the model layer throws. Each has a stable `name` (which Temporal uses as the
 * `ApplicationFailure.type`, so retry policies can match it), a `Symbol.for` marker and a static
 * `isInstance`, because `instanceof` is not trusted across bundles and sandboxes.
 * Worker-side only.
 */

const configMarker: unique symbol = Symbol.for('cairn.model.ModelConfigError');
const serverMarker: unique symbol = Symbol.for('cairn.model.ModelServerError');
const networkMarker: unique symbol = Symbol.for('cairn.model.ModelNetworkError');

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && marker in error;
}

/**
 * A model spec that cannot be resolved: unknown prefix, missing model name, missing API key or
 * base URL, unknown script. Retrying cannot fix it; list it in `nonRetryableErrorTypes`.
 */
export class ModelConfigError extends Error {
  private readonly [configMarker] = true;
  override readonly name = 'ModelConfigError';

  constructor(
    message: string,
    /** The environment variables that would fix it (`OPENAI_API_KEY`), when that is the problem. */
    readonly needs: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** True for a ModelConfigError from any copy of this module. */
  static isInstance(error: unknown): error is ModelConfigError {
    return hasMarker(error, configMarker);
  }
}

/**
 * The provider answered with a status worth retrying unchanged (5xx, 408, 409).
 * Thrown so that Temporal's activity retry policy retries the call.
 */
export class ModelServerError extends Error {
  private readonly [serverMarker] = true;
  override readonly name = 'ModelServerError';

  constructor(
    message: string,
    /** The HTTP status the provider answered with. */
    readonly statusCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** True for a ModelServerError from any copy of this module. */
  static isInstance(error: unknown): error is ModelServerError {
    return hasMarker(error, serverMarker);
  }
}

/** The provider could not be reached, or the connection broke before an answer. Retryable. */
export class ModelNetworkError extends Error {
  private readonly [networkMarker] = true;
  override readonly name = 'ModelNetworkError';

  /** True for a ModelNetworkError from any copy of this module. */
  static isInstance(error: unknown): error is ModelNetworkError {
    return hasMarker(error, networkMarker);
  }
}
