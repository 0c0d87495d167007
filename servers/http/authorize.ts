/**
 * Who may do what: the handler asks `authorize(request, action, run)` before every act. Return
 * `true` (or nothing) to allow, `false` for 403, or throw an HttpError (401 with a challenge, say).
 * Or return who is asking, `{ tenant, user }` (allowed): then the request sees only the tenant's
 * runs (another tenant's run is 404, as one that never was), its thread ids are the tenant's own,
 * and the runs it starts belong to the tenant and the user.
 * `bearerToken(token)` is the default `cairn serve` uses: `Authorization: Bearer <token>`,
 * compared in constant time. Node-only (client side).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-error.js';
import { TENANT_ID } from '../../workflows/contract/index.js';

/** What a request asks to do. */
export type HttpAction =
  | 'start'
  | 'read'
  | 'events'
  | 'answer'
  | 'review'
  | 'message'
  | 'cancel'
  | 'inbox'
  | 'agui'
  | 'chat';

/** The run a request is about, when it is about one. */
export interface HttpRunRef {
  readonly workflowId: string;
}

/** Who is asking: the tenant whose runs the request may see, and the user (recorded on the runs it starts). */
export interface Caller {
  readonly tenant?: string;
  readonly user?: string;
}

/** `true` or nothing allows, `false` is 403, a `Caller` allows and scopes the request to its tenant. */
// biome-ignore lint/suspicious/noConfusingVoidType: a function that returns nothing allows; `undefined` would refuse one declared without a return
export type AuthorizeVerdict = boolean | void | Caller;

/**
 * For a thread endpoint (`POST /runs` with a thread id, `/agui`, `/chat`), `run.workflowId` is the
 * thread's workflow id before tenant scoping (`<prefix><threadId>`).
 */
export type Authorize = (
  request: Request,
  action: HttpAction,
  run: HttpRunRef | undefined,
) => AuthorizeVerdict | Promise<AuthorizeVerdict>;

/** Allows requests that carry `Authorization: Bearer <token>`; 401 otherwise. */
export function bearerToken(token: string): Authorize {
  if (!token) throw new Error('bearerToken needs a non-empty token.');
  const want = digest(token);
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), want))
      throw new HttpError(401, 'unauthorized', 'Send Authorization: Bearer <token>.', {
        'www-authenticate': 'Bearer realm="cairn"',
      });
    return true;
  };
}

/** Same length whatever the input, so the comparison leaks nothing. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Asks `authorize`; returns who is asking (`{}` when it does not say). */
export async function checkAuthorized(
  authorize: Authorize | undefined,
  request: Request,
  action: HttpAction,
  run?: HttpRunRef,
): Promise<Caller> {
  if (!authorize) return {};
  const verdict = await authorize(request, action, run);
  if (verdict === false)
    throw new HttpError(403, 'forbidden', `Not allowed to ${action}${run ? ` on run "${run.workflowId}"` : ''}.`);
  if (verdict === true || verdict === undefined || verdict === null) return {};
  const tenant = (verdict as Caller).tenant;
  const user = (verdict as Caller).user;
  if (tenant !== undefined && (typeof tenant !== 'string' || !TENANT_ID.test(tenant)))
    throw new Error(
      `authorize returned an invalid tenant (${JSON.stringify(tenant)}): letters, digits and _.@-, up to 100.`,
    );
  if (user !== undefined && (typeof user !== 'string' || user.length === 0 || user.length > 200))
    throw new Error('authorize returned an invalid user: 1-200 characters.');
  return { ...(tenant !== undefined && { tenant }), ...(user !== undefined && { user }) };
}
