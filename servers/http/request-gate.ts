/**
 * Bounds on what one handler instance takes on: requests in flight (streams not counted: they
 * hold no Temporal call but their long poll), and acts on one run in flight (answers, decisions,
 * cancels), so a burst of a thousand answers to one question costs the run a few Updates, not a
 * thousand. Over a bound: 429 with Retry-After. Node-only (client side).
 */
import { HttpError } from './http-error.js';

export class RequestGate {
  #inFlight = 0;
  readonly #perRun = new Map<string, number>();

  constructor(
    private readonly maxInFlight: number,
    private readonly maxPerRun: number,
  ) {}

  /** Runs `work` inside the global bound, and inside `run`'s bound when given. */
  async run<T>(workflowId: string | undefined, work: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.maxInFlight) throw busy('This server is busy; try again shortly.');
    const perRun = workflowId === undefined ? 0 : (this.#perRun.get(workflowId) ?? 0);
    if (workflowId !== undefined && perRun >= this.maxPerRun)
      throw busy(`Run "${workflowId}" is busy with other requests; try again shortly.`);
    this.#inFlight++;
    if (workflowId !== undefined) this.#perRun.set(workflowId, perRun + 1);
    try {
      return await work();
    } finally {
      this.#inFlight--;
      if (workflowId !== undefined) {
        const left = (this.#perRun.get(workflowId) ?? 1) - 1;
        if (left <= 0) this.#perRun.delete(workflowId);
        else this.#perRun.set(workflowId, left);
      }
    }
  }
}

function busy(message: string): HttpError {
  return new HttpError(429, 'busy', message, { 'retry-after': '1' });
}
