/**
 * Where a run posts its status as it changes — an A2A push notification config: a URL, the
 * caller's token for it (sent as `X-A2A-Notification-Token`) and the credentials the receiver
 * wants (`Authorization: <scheme> <credentials>`). Set, listed and deleted through the run (Updates
 * checked by `pushTargetProblem` before anything enters history, and a Query); the run posts the
 * task (workflows/contract/a2a-task.ts) at each change of its status — working, input required
 * with what is asked, the end — from an activity that retries while the receiver is down.
 * Part of the run's contract (workflows/contract/index.ts): workflow-safe.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export interface PushTarget {
  /** The config's id, unique in its run. */
  readonly id: string;
  readonly url: string;
  /** Sent back as `X-A2A-Notification-Token`, so the receiver knows the post is the one it asked for. */
  readonly token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  readonly authentication?: { readonly scheme: string; readonly credentials: string };
}

/** What a run carries of its push notifications into the next run of its chain. */
export interface CarriedPush {
  readonly targets: readonly PushTarget[];
  /** Bodies not yet taken, by target id. */
  readonly queued: Readonly<Record<string, readonly string[]>>;
  readonly key: string;
}

/** The most targets a run posts to. */
export const MAX_PUSH_TARGETS = 10;
const MAX_URL = 2_048;
const MAX_FIELD = 1_024;

/** Why `target` cannot be a run's push target (one sentence), or undefined when it can. */
export function pushTargetProblem(target: unknown): string | undefined {
  if (typeof target !== 'object' || target === null)
    return 'A push target is an object: { id, url, token?, authentication? }.';
  const t = target as Record<string, unknown>;
  if (typeof t.id !== 'string' || !/^[\w.:-]{1,128}$/.test(t.id))
    return 'A push target\'s id is 1 to 128 letters, digits, "_", "-", "." or ":".';
  if (typeof t.url !== 'string' || t.url.length > MAX_URL || !/^https?:\/\/[^\s/?#]+[^\s]*$/i.test(t.url))
    return `A push target's url is an http(s) URL of at most ${MAX_URL} characters.`;
  if (t.token !== undefined && (typeof t.token !== 'string' || t.token.length > MAX_FIELD || /[\r\n]/.test(t.token)))
    return `A push target's token is one line of at most ${MAX_FIELD} characters.`;
  const auth = t.authentication;
  if (auth !== undefined) {
    const a = auth as Record<string, unknown>;
    if (
      typeof auth !== 'object' ||
      auth === null ||
      typeof a.scheme !== 'string' ||
      !/^[\w!#$%&'*+.^`|~-]{1,64}$/.test(a.scheme) ||
      typeof a.credentials !== 'string' ||
      a.credentials.length > MAX_FIELD ||
      /[\r\n]/.test(a.credentials)
    )
      return "A push target's authentication is { scheme, credentials }: an HTTP auth scheme (Bearer, Basic…) and one line.";
  }
  return undefined;
}

/** Add a push target, or replace the one with its id; refused (no history) for a bad one or past MAX_PUSH_TARGETS. */
export const setPushTargetUpdate = defineUpdate<PushTarget, [PushTarget]>('setPushTarget');
/** Remove the push target with this id; true when there was one. */
export const deletePushTargetUpdate = defineUpdate<boolean, [string]>('deletePushTarget');
/** The run's push targets. */
export const pushTargetsQuery = defineQuery<readonly PushTarget[]>('pushTargets');
