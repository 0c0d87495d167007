/**
 * `postRunStatus`: posts one push notification a run built (shared/push/status-post.ts) to its
 * receiver. A 2xx is done; a refusal for good (4xx but 408 and 429) is not retried
 * (`push_refused`); anything else — the receiver down, a 5xx, a timeout — fails the attempt
 * quietly (one log line, a benign failure), and Temporal retries it on the workflow's schedule,
 * so a receiver that comes back gets every notification, in order. Worker side.
 */
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { PUSH_REFUSED, type StatusPost } from '../shared/push/status-post.js';

/** How long one attempt waits for the receiver's answer. */
const ATTEMPT_MS = 10_000;

export function createStatusPushActivities(fetchImpl: typeof fetch = fetch) {
  return {
    async postRunStatus(post: StatusPost): Promise<void> {
      let status: number;
      try {
        const response = await fetchImpl(post.url, {
          method: 'POST',
          headers: post.headers,
          body: post.body,
          signal: AbortSignal.timeout(ATTEMPT_MS),
          redirect: 'manual',
        });
        status = response.status;
        await response.body?.cancel();
      } catch (error) {
        throw retried(post, describe(error));
      }
      if (status >= 200 && status < 300) return;
      if (status >= 400 && status < 500 && status !== 408 && status !== 429)
        throw ApplicationFailure.nonRetryable(
          `The receiver at ${origin(post)} refused the notification (HTTP ${status}).`,
          PUSH_REFUSED,
        );
      throw retried(post, `HTTP ${status}`);
    },
  };
}

/** One line in the worker's log, and a benign failure Temporal retries. */
function retried(post: StatusPost, why: string): ApplicationFailure {
  const info = activityInfo();
  console.warn(
    `cairn: push notification of ${info.workflowExecution?.workflowId ?? 'a run'} to ${origin(post)} failed (attempt ${info.attempt}): ${why}; Temporal retries it`,
  );
  return ApplicationFailure.create({
    type: 'push_unavailable',
    message: `The receiver at ${origin(post)} did not take the notification: ${why}.`,
    category: ApplicationFailureCategory.BENIGN,
  });
}

function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer in ${ATTEMPT_MS / 1000} s`;
  return (e.cause?.code ?? e.cause?.message ?? e.message ?? String(error)).slice(0, 200);
}

/** The receiver's origin: its path may hold a secret, the log does not. */
function origin(post: StatusPost): string {
  try {
    return new URL(post.url).origin;
  } catch {
    return 'the receiver';
  }
}
