/**
 * HttpError: what the HTTP handler answers when it cannot do what a request asks, as a JSON body
 * `{ error: { code, message } }` with a status that fits. Codes are stable; messages are for
 * people; no stack trace ever leaves the handler. Node-only (client side).
 */

/** The stable codes the handler answers with. */
export type HttpErrorCode =
  | 'malformed_json'
  | 'invalid_request'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'unknown_run'
  | 'unknown_agent'
  | 'method_not_allowed'
  | 'not_pending'
  | 'stale_review'
  | 'already_decided'
  | 'invalid_input'
  | 'run_closed'
  | 'run_busy'
  | 'run_finishing'
  | 'queue_full'
  | 'busy'
  | 'tenant_runs_limit'
  | 'outcome_unknown'
  | 'run_failed'
  | 'internal';

const marker: unique symbol = Symbol.for('cairn.http.HttpError');

export class HttpError extends Error {
  private readonly [marker] = true;
  override readonly name = 'HttpError';

  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    /** Extra response headers (WWW-Authenticate, Retry-After, Allow). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  static isInstance(error: unknown): error is HttpError {
    return typeof error === 'object' && error !== null && marker in error;
  }

  /** The JSON response for this error. */
  toResponse(extraHeaders: Readonly<Record<string, string>> = {}): Response {
    return Response.json(
      { error: { code: this.code, message: this.message } },
      { status: this.status, headers: { ...extraHeaders, ...this.headers } },
    );
  }
}
