/**
 * One push notification as the `postRunStatus` activity sends it: the receiver's URL, the headers
 * (content type, the caller's token, its credentials) and the body, built by the workflow
 * (workflows/status-push.ts). Shared by the workflow and the activity; plain data.
 */
export interface StatusPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text: an A2A `StreamResponse` holding the task. */
  readonly body: string;
}

/** The failure type of a post the receiver refused for good (a 4xx but 408 and 429): not retried. */
export const PUSH_REFUSED = 'push_refused';
