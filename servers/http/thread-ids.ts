/**
 * A thread (an AG-UI `threadId`, an AI SDK chat id, a `POST /runs` `threadId`) maps to one
 * workflow id, the same on every instance: `<prefix><threadId>`. No table: Temporal's workflow id
 * is the thread's address, and its id conflict policy makes starting idempotent. Node-only.
 */
import { HttpError } from './http-error.js';

/** Letters, digits and `-_.:@`, up to 200 characters: safe in a workflow id and a URL. */
const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$/;

export function workflowIdOf(threadId: unknown, prefix: string): string {
  if (typeof threadId !== 'string' || !THREAD_ID.test(threadId))
    throw new HttpError(
      400,
      'invalid_request',
      'A thread id is 1-200 characters: letters, digits and - _ . : @, starting with a letter or digit.',
    );
  return `${prefix}${threadId}`;
}
