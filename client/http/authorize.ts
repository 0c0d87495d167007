/**
 * Who may do what: the handler asks `authorize(request, action, run)` before every act. Return
 * `true` (or nothing) to allow, `false` for 403, or throw an HttpError (401 with a challenge, say).
 * `bearerToken(token)` is the default `cairn serve` uses: `Authorization: Bearer <token>`,
 * compared in constant time. Node-only (client side).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-error.js';

/** What a request asks to do. */
export type HttpAction = 'start' | 'read' | 'events' | 'answer' | 'review' | 'message' | 'cancel' | 'inbox' | 'agui' | 'chat';

/** The run a request is about, when it is about one. */
export interface HttpRunRef {
  readonly workflowId: string;
}

export type Authorize = (request: Request, action: HttpAction, run: HttpRunRef | undefined) => boolean | void | Promise<boolean | void>;

/** Allows requests that carry `Authorization: Bearer <token>`; 401 otherwise. */
export function bearerToken(token: string): Authorize {
  if (!token) throw new Error('bearerToken needs a non-empty token.');
  const want = digest(token);
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), want))
      throw new HttpError(401, 'unauthorized', 'Send Authorization: Bearer <token>.', { 'www-authenticate': 'Bearer realm="cairn"' });
    return true;
  };
}

/** Same length whatever the input, so the comparison leaks nothing. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export async function checkAuthorized(authorize: Authorize | undefined, request: Request, action: HttpAction, run?: HttpRunRef): Promise<void> {
  if (!authorize) return;
  const verdict = await authorize(request, action, run);
  if (verdict === false) throw new HttpError(403, 'forbidden', `Not allowed to ${action}${run ? ` on run "${run.workflowId}"` : ''}.`);
}
