/**
 * Fencing late workers: an activity whose worker was stopped (SIGSTOP, a long GC pause, a frozen
 * VM) wakes up after the server timed its attempt out and another worker took the call over. A
 * heartbeat sent by the SDK learns that only on its answer, after the code went on. This asks the
 * server and waits for the answer: one RecordActivityTaskHeartbeat with the attempt's task token,
 * which the server refuses (NOT_FOUND) once the attempt is no longer the current one. Worker side.
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';

/** gRPC status NOT_FOUND: the server knows no running attempt with this task token. */
const NOT_FOUND = 5;

/**
 * An AbortSignal that follows the activity's cancellation and also fires when `confirmAttempt`
 * finds the attempt gone, and the `confirmAttempt` that does so. `details` go with its heartbeat
 * (encoded as the worker encodes any payload): once it resolves, the server holds them.
 */
export function attemptFence(context: Context = Context.current()): {
  signal: AbortSignal;
  confirmAttempt: (details?: unknown) => Promise<void>;
} {
  const controller = new AbortController();
  const cancelled = context.cancellationSignal;
  const follow = () => controller.abort(cancelled.reason);
  if (cancelled.aborted) follow();
  else cancelled.addEventListener('abort', follow, { once: true });
  const fail = (why: string): never => {
    const failure = new CancelledFailure(why);
    if (!controller.signal.aborted) controller.abort(failure);
    throw failure;
  };
  const confirmAttempt = async (details?: unknown): Promise<void> => {
    let client;
    try {
      client = context.client;
    } catch {
      if (controller.signal.aborted) fail('the attempt was cancelled');
      return; // no server to ask (MockActivityEnvironment): nothing can have taken the call over
    }
    const { taskToken, activityNamespace, startToCloseTimeoutMs } = context.info;
    // An unreachable server (restarting) is asked again until it answers: back within the heartbeat
    // timeout, the attempt is still its own and goes on; later, it answers NOT_FOUND. Past the
    // attempt's start-to-close timeout it cannot be current any more: give up, nothing ran.
    const giveUpAt = Date.now() + startToCloseTimeoutMs;
    const payloads =
      details === undefined ? undefined : await encodeToPayloads(client.options.loadedDataConverter, details);
    for (let wait = 100; ; wait = Math.min(wait * 2, 1_000)) {
      if (controller.signal.aborted) fail('the attempt was cancelled');
      try {
        const answer = await client.workflowService.recordActivityTaskHeartbeat({
          taskToken,
          namespace: activityNamespace,
          identity: 'cairn-attempt-fence',
          ...(payloads && { details: { payloads } }),
        });
        if (answer.cancelRequested) fail('the attempt was cancelled');
        return;
      } catch (err) {
        if (err instanceof CancelledFailure) throw err;
        if ((err as { code?: unknown }).code === NOT_FOUND)
          fail('the attempt timed out: the server no longer runs it, so it must not take effect');
        if (Date.now() + wait > giveUpAt)
          fail('the server could not confirm the attempt before its start-to-close timeout');
        await Promise.race([new Promise((resolve) => setTimeout(resolve, wait)), context.cancelled.catch(() => {})]);
      }
    }
  };
  return { signal: controller.signal, confirmAttempt };
}
