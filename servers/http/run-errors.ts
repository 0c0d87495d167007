/**
 * What a failed call to a run means over HTTP: an unknown run is 404; an answer or decision the
 * run refused (its `HumanInputError`, raised by the workflow's own validators) is 409 when it no
 * longer applies (stale arguments, already decided, nothing pending) and 422 when it is invalid,
 * by the refusal's code (never its message text);
 * a server too busy for one more Update is 429. Anything else is 500 without details (the cause
 * goes to the handler's `onError`). Node-only (client side).
 */
import { NotPendingError } from '../../client/not-pending-error.js';
import { CONFLICT_REFUSALS, refusalCodeOf } from '../../shared/human-input/refusal.js';
import { HttpError } from './http-error.js';

/** The HttpError for `error`, thrown by a client call on run `workflowId`. */
export function runError(error: unknown, workflowId: string): HttpError {
  if (HttpError.isInstance(error)) return error;
  if (NotPendingError.isInstance(error)) return new HttpError(409, 'not_pending', error.message);
  const e = error as {
    name?: string;
    message?: string;
    cause?: { type?: string; message?: string; code?: number; details?: unknown };
    code?: number;
  };
  if (e.name === 'WorkflowNotFoundError') return new HttpError(404, 'unknown_run', `No run with id "${workflowId}".`);
  const cause = e.cause;
  if (cause?.type === 'HumanInputError') {
    const code = refusalCodeOf(cause.details) ?? 'invalid_input';
    return new HttpError(CONFLICT_REFUSALS.includes(code) ? 409 : 422, code, cause.message ?? 'Refused by the run.');
  }
  // gRPC RESOURCE_EXHAUSTED (8): too many Updates in flight on the run.
  if (e.code === 8 || cause?.code === 8)
    return new HttpError(429, 'busy', 'The run is busy; try again shortly.', { 'retry-after': '1' });
  if (/workflow execution already completed|already completed/i.test(e.message ?? ''))
    return new HttpError(409, 'run_closed', `Run "${workflowId}" has finished.`);
  return new HttpError(500, 'internal', 'The request failed.');
}
