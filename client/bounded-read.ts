/**
 * A read that never waits on a worker for longer than its deadline: the run's own answer (a Query)
 * when it comes in time, else a fallback read from what Temporal keeps. The fallback starts after a
 * short head start, so a worker that answers at once costs no extra call, and is ready by the
 * deadline; told that no worker polls the run's queue, the read takes the fallback at once and
 * cancels the Query. Node-only (client side).
 */

/** gRPC's DEADLINE_EXCEEDED status code. */
const DEADLINE_EXCEEDED = 4;
/** How long the Query has alone before the fallback read starts beside it, in ms. */
const HEAD_START_MS = 250;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How close to its deadline a server's error for a Query counts as that deadline. */
const NEAR_DEADLINE_MS = 500;

export interface BoundedOutcome<T> {
  readonly value: T;
  /** The run's worker answered (the Query's own answer). */
  readonly answered: boolean;
  /**
   * No answer came by the deadline: none, or the server's own timeout just before it (a fallback
   * after another error the Query gave is not a miss).
   */
  readonly missed: boolean;
  /** The fallback was read at once: no worker polls the run's queue. */
  readonly unpolled?: true;
}

const UNPOLLED = Symbol('unpolled');

/**
 * `ask` (given its deadline, as epoch ms, and a signal that cancels it) within `deadlineMs`, else
 * `fallback()` (at once for a deadline of 0: `ask` is not called; and as soon as `unpolled`
 * resolves true: no worker could answer). A Query refused
 * because the run does not exist throws; any other failure of the Query falls back too (a closed
 * run with no worker to replay it, a run that failed before it could answer). When the fallback
 * fails as well, the Query's error is thrown (or the fallback's, after a miss or when the server
 * failed the Query: it says nothing of the run).
 */
export async function boundedRead<T>(
  ask: (deadline: number, signal: AbortSignal) => Promise<T>,
  fallback: () => Promise<T>,
  deadlineMs: number,
  unpolled?: Promise<boolean>,
): Promise<BoundedOutcome<T>> {
  if (deadlineMs <= 0) return { value: await fallback(), answered: false, missed: false };
  const deadline = Date.now() + deadlineMs;
  const cancel = new AbortController();
  type Asked = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };
  const answer: Promise<Asked> = ask(deadline, cancel.signal).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  // Whichever comes first: the answer, or word that nobody polls (a check that fails says nothing).
  const asked: Promise<Asked | typeof UNPOLLED> = unpolled
    ? Promise.race<Asked | typeof UNPOLLED>([
        answer,
        unpolled.then<Asked | typeof UNPOLLED, Asked>(
          (none) => (none ? UNPOLLED : answer),
          () => answer,
        ),
      ])
    : answer;
  let spare: Promise<T> | undefined;
  const startFallback = () => {
    spare ??= fallback();
    return spare;
  };
  const early = await raceTimer(asked, Math.min(HEAD_START_MS, deadlineMs));
  if (early === undefined) startFallback().catch(() => undefined);
  const got = early ?? (await raceTimer(asked, deadline - Date.now()));
  if (got === UNPOLLED) {
    cancel.abort();
    return { value: await startFallback(), answered: false, missed: false, unpolled: true };
  }
  if (got === undefined) cancel.abort();
  if (got?.ok) return { value: got.value, answered: true, missed: false };
  if (got && (got.error as Error | undefined)?.name === 'WorkflowNotFoundError') throw got.error;
  try {
    return {
      value: await startFallback(),
      answered: false,
      missed: got === undefined || timedOut(got.error, deadline),
    };
  } catch (error) {
    // The Query's error says more about the run than the fallback's, unless the server failed the
    // Query itself (a loaded server's "query task not found, or already expired"): then the fallback's.
    throw got && (got.error as Error | undefined)?.name !== 'ServiceError' ? got.error : error;
  }
}

/**
 * A Query nobody took: the deadline, or the error a loaded server gives for a Query no worker
 * took just before it ("query timed out before a worker could process it").
 */
function timedOut(error: unknown, deadline: number): boolean {
  if (isDeadlineError(error)) return true;
  return (error as Error | undefined)?.name === 'ServiceError' && Date.now() >= deadline - NEAR_DEADLINE_MS;
}

/** What `promise` gives within `ms`, or undefined (the timer is cleared either way). */
async function raceTimer<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  // Node runs a timer past its longest delay (about 24.8 days, or Infinity) at once: no bound at all.
  if (ms > MAX_TIMER_MS) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `read()` (a Query only the run can answer) within the run's read deadline: a worker that does
 * not answer in time fails it, as a Query with no answer would.
 */
export function withinReadDeadline<T>(
  run: {
    readonly workflow: { readonly client: { withDeadline<R>(deadline: number, fn: () => Promise<R>): Promise<R> } };
    readonly readDeadlineMs: number;
  },
  read: () => Promise<T>,
): Promise<T> {
  return run.workflow.client.withDeadline(Date.now() + run.readDeadlineMs, read);
}

/**
 * A gRPC DEADLINE_EXCEEDED anywhere in the cause chain, as the SDK's `isGrpcDeadlineError` reads it.
 * Not imported from `@temporalio/client`: `cairn init` loads this module from an unpacked tarball,
 * before the project has installed its peers.
 */
function isDeadlineError(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 10; at = at.cause, depth++) {
    const grpc = at as Error & { code?: unknown; details?: unknown; metadata?: unknown };
    if (typeof grpc.details === 'string' && grpc.metadata !== undefined && grpc.code === DEADLINE_EXCEEDED) return true;
  }
  return false;
}
