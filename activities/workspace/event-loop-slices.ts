/**
 * Runs many small synchronous file-system calls in slices: a restore or a scan of 10,000 files is
 * several times faster with sync calls than through libuv's thread pool, but the worker's event
 * loop (heartbeats, other activities) must keep turning, so the work yields every few milliseconds.
 * Worker side only.
 */
import { setImmediate } from 'node:timers/promises';

/** How long one slice may hold the event loop. */
export const SLICE_MS = 10;

/** A `pause()` to call between items: it yields to the event loop once the slice has run `sliceMs`. */
export function slices(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    if (performance.now() - started < sliceMs) return undefined;
    return setImmediate().then(() => {
      started = performance.now();
    });
  };
}
