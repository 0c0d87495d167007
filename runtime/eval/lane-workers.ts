/**
 * The lane workers of this process, one per connection and task queue. Evaluations that run at once
 * in one process (a test's, a deploy gate's) and whose lanes have the same code share that lane's
 * worker: Temporal refuses a second worker of one queue in a process. Each evaluation registers its
 * lane runs with the worker while it runs; the last one to let go stops it. The worker is made with
 * the first evaluation's options (deps, models, converter): evaluations at once in one process are
 * taken to share them. Node-only.
 */
import { activityInfo } from '@temporalio/activity';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { LaneRuns } from './eval-activities.js';
import type { LaneRun } from './lane-run.js';
import type { ScheduledActivity } from './lane-position.js';

/** The lane runs of every evaluation a shared worker serves; each run is read by its own evaluation's registry. */
export class SharedLaneRuns implements LaneRuns {
  readonly #registries = new Set<LaneRuns>();

  add(runs: LaneRuns): void {
    this.#registries.add(runs);
  }

  delete(runs: LaneRuns): void {
    this.#registries.delete(runs);
  }

  get(workflowId: string): LaneRun | undefined {
    return this.#owner(workflowId)?.run;
  }

  readonly scheduledBefore = async (match: (activity: ScheduledActivity) => boolean): Promise<number | undefined> =>
    this.#owner(activityInfo().workflowExecution?.workflowId ?? '')?.runs.scheduledBefore?.(match);

  #owner(workflowId: string): { runs: LaneRuns; run: LaneRun } | undefined {
    for (const runs of this.#registries) {
      const run = runs.get(workflowId);
      if (run) return { runs, run };
    }
    return undefined;
  }
}

interface Held {
  readonly started: Promise<{ readonly worker: Worker; readonly running: Promise<void> }>;
  readonly runs: SharedLaneRuns;
  users: number;
}

interface Workers {
  readonly held: Map<string, Held>;
  /** Workers let go and still stopping, by key: a new one of that queue waits for it. */
  readonly stopping: Map<string, Promise<void>>;
}

const byConnection = new WeakMap<NativeConnection, Workers>();

/** A lane worker this evaluation uses until it lets go. */
export interface LaneWorkerLease {
  /** Stops the worker when no other evaluation in this process uses it; resolves once it stopped (or at once). */
  release(): Promise<void>;
}

/**
 * The worker of `taskQueue` on `connection`, started by `start` unless this process runs it already,
 * serving `runs` (this evaluation's) beside any other evaluation's.
 */
export async function leaseLaneWorker(
  connection: NativeConnection,
  key: string,
  runs: LaneRuns,
  start: (runs: LaneRuns) => Promise<Worker>,
): Promise<LaneWorkerLease> {
  let workers = byConnection.get(connection);
  if (!workers) byConnection.set(connection, (workers = { held: new Map(), stopping: new Map() }));
  const { held, stopping } = workers;
  let entry = held.get(key);
  if (!entry) {
    const shared = new SharedLaneRuns();
    const started = (stopping.get(key) ?? Promise.resolve()).then(async () => {
      const worker = await start(shared);
      const running = worker.run();
      // Awaited at release; a worker that fails before then is not an unhandled rejection.
      running.catch(() => {});
      return { worker, running };
    });
    const made: Held = { started, runs: shared, users: 0 };
    started.catch(() => {
      if (held.get(key) === made) held.delete(key);
    });
    held.set(key, made);
    entry = made;
  }
  const lease = entry;
  lease.users++;
  lease.runs.add(runs);
  /** True when this was the worker's last user: the caller stops it. */
  const letGo = () => {
    lease.runs.delete(runs);
    if (--lease.users > 0 || held.get(key) !== lease) return false;
    held.delete(key);
    return true;
  };
  let started: Awaited<Held['started']>;
  try {
    started = await lease.started;
  } catch (error) {
    letGo();
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      if (!letGo()) return;
      started.worker.shutdown();
      const stopped = started.running.catch(() => {});
      stopping.set(key, stopped);
      await stopped;
      if (stopping.get(key) === stopped) stopping.delete(key);
    },
  };
}
