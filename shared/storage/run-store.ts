/**
 * The store a fleet's workers share for what a run hands over outside its history: the messages
 * of its transcript (so a model turn on any worker reads them without asking the workflow) and
 * tool results too large for history (`read_result`). One interface, a few drivers: PostgreSQL,
 * Redis, a shared directory (activities/storage/), an in-memory one for tests (testing/).
 *
 * Values are written whole under their key and read back whole; writing a key again replaces
 * its value (every writer of a key writes the same value: a run's transcript is deterministic).
 * A value may go missing (a TTL, a lost cache): a reader asks the run for the messages instead,
 * so a store is a cache of history, never the only copy.
 * Workflow-safe to import (types and pure key helpers only).
 */

export interface RunStore {
  /** Writes each `[key, value]`; resolves once all are stored. Safe to retry. */
  put(entries: readonly (readonly [key: string, value: string])[]): Promise<void>;
  /** The values under `keys`, in order, `undefined` where a key has none. */
  get(keys: readonly string[]): Promise<(string | undefined)[]>;
  /** Lets go of connections; the store is not used after. */
  close?(): Promise<void>;
}

/** Which run a transcript belongs to. */
export interface TranscriptRun {
  readonly workflowId: string;
  readonly runId: string;
}

/**
 * The key of message `index` of a run's transcript at `epoch`. The run id is unique per run, so
 * two runs never share a key; the epoch changes whenever the run rewrites earlier messages.
 */
export function transcriptKey(run: TranscriptRun, epoch: number, index: number): string {
  return `cairn:t:${run.runId}:${epoch}:${index}:${run.workflowId}`;
}

/** The key of a stored tool result, by its reference. */
export function storedResultKey(ref: string): string {
  return `cairn:r:${ref}`;
}
