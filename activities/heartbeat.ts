/**
 * Heartbeats while an activity waits on a tool or a model, so that a dead worker is noticed at
 * the activity's `heartbeatTimeout` (seconds) instead of its start-to-close timeout (minutes), and
 * so that cancellation reaches the activity at all: Temporal delivers it only in answer to a
 * heartbeat. The wait ends the moment the activity is cancelled, with a CancelledFailure, even if
 * the work ignores its abort signal. Worker side only.
 */
import { CancelledFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';

/**
 * How often the activity heartbeats, by default. The SDK throttles what it sends to 80% of the
 * activity's `heartbeatTimeout` (30 s when none is set), so calling often costs nothing.
 */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;

/**
 * Runs `work` while heartbeating every `intervalMs`, or twice per heartbeat timeout when that is
 * shorter (with `details`, when given: the server keeps the last ones); resolves or rejects with
 * it, or rejects with a CancelledFailure as soon as Temporal cancels the activity (pass the
 * activity's `cancellationSignal` on to whatever `work` waits for, so it stops too).
 */
export async function withHeartbeats<T>(
  work: () => Promise<T> | T,
  intervalMs: number = DEFAULT_HEARTBEAT_INTERVAL_MS,
  details?: unknown,
): Promise<T> {
  const context = Context.current();
  // No beat at the start without details: the heartbeat timeout counts from the attempt's start,
  // and a beat is a server round trip (and a write of the activity's state) that a call done in
  // milliseconds never needs. Details go at once, so the server holds them before the work begins.
  if (details !== undefined) context.heartbeat(details);
  const timeoutMs = context.info.heartbeatTimeoutMs;
  const everyMs = timeoutMs ? Math.min(intervalMs, timeoutMs / 2) : intervalMs;
  const timer = setInterval(() => context.heartbeat(details), Math.max(10, everyMs));
  try {
    return await Promise.race([Promise.resolve().then(work), context.cancelled]);
  } finally {
    clearInterval(timer);
  }
}

/**
 * The error an activity must throw once it has been cancelled, so Temporal records a
 * cancellation (not a failure that disables the tool): the SDK's own CancelledFailure, whatever
 * the work threw on its way out (an AbortError, a TypeError from a half-closed socket).
 */
export function cancellation(signal: AbortSignal): CancelledFailure {
  const reason: unknown = signal.reason;
  if (typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'CancelledFailure')
    return reason as CancelledFailure;
  return new CancelledFailure(typeof reason === 'string' ? reason : 'Activity cancelled');
}
