/**
 * A run store in this process's memory, for tests: every worker of the test shares it when they
 * share the object. It can lose values on purpose (`delete`) and count what was read and written.
 */
import type { RunStore } from '../shared/storage/run-store.js';

export class MemoryRunStore implements RunStore {
  readonly values = new Map<string, string>();
  /** Values written and read so far. */
  writes = 0;
  reads = 0;

  async put(entries: readonly (readonly [string, string])[]): Promise<void> {
    for (const [key, value] of entries) this.values.set(key, value);
    this.writes += entries.length;
  }

  async get(keys: readonly string[]): Promise<(string | undefined)[]> {
    this.reads += keys.length;
    return keys.map((key) => this.values.get(key));
  }

  /** Removes the values whose keys `match`; returns how many. */
  delete(match: (key: string) => boolean): number {
    let removed = 0;
    for (const key of [...this.values.keys()])
      if (match(key)) {
        this.values.delete(key);
        removed++;
      }
    return removed;
  }
}
