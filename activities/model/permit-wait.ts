/**
 * The last stretch of a wait for a permit, waited in the model activity rather than on a durable
 * timer. A held call (flow control's reserved slot, or the worker's learned pace) goes back to its
 * workflow to wait on a timer, but comes back `lead` ms before its slot and waits the rest here,
 * to the millisecond: a timer that fires late (a busy worker or server) no longer leaves the
 * provider idle in the slot it was given, and a call whose slot is near is sent without a round
 * trip through the workflow. The lead follows how late timers come back (an average of the
 * lateness seen, with a margin), between MIN_LEAD_MS and MAX_LEAD_MS. At most `maxHeld` calls wait
 * here at once, so the activity slots stay free for tools; past it, calls wait on timers as before.
 * Worker side only.
 */

/** The least lead: timers on an idle dev server are tens of ms late. */
const MIN_LEAD_MS = 250;
/** The most: a call waits here at most about this long (heartbeating). A busy worker's timers are seconds late. */
const MAX_LEAD_MS = 6_000;
/** Weight of the newest lateness in the average. */
const SMOOTHING = 0.2;
/** Expected returns older than this are forgotten (the run ended or went elsewhere). */
const STALE_MS = 600_000;

export class PermitWait {
  /** When each held call was told to come back (by reservation key). */
  readonly #due = new Map<string, number>();
  #late = 0;
  #held = 0;

  constructor(readonly maxHeld = 32) {}

  /** How long before its slot a held call is asked to come back. */
  lead(): number {
    return Math.round(Math.min(MAX_LEAD_MS, Math.max(MIN_LEAD_MS, 1.5 * this.#late + 100)));
  }

  /**
   * The wait a held call is told in its reply: back `lead` ms early (a slot nearer than that, which found no
   * place here, is waited in full: no quick round trips); noted, to learn the lateness when it returns.
   */
  backIn(key: string, waitMs: number, now: number): number {
    const lead = this.lead();
    const back = Math.max(1, Math.ceil(waitMs > lead ? waitMs - lead : waitMs));
    if (this.#due.size > 10_000) for (const [k, at] of this.#due) if (at < now - STALE_MS) this.#due.delete(k);
    this.#due.set(key, now + back);
    return back;
  }

  /** A held call came back: how late its timer fired feeds the lead. */
  returned(key: string, now: number): void {
    const due = this.#due.get(key);
    if (due === undefined) return;
    this.#due.delete(key);
    this.#late += SMOOTHING * (Math.max(0, now - due) - this.#late);
  }

  /** Whether a call told to wait `waitMs` may wait here (near enough, and a place free); `done()` when it stops waiting. */
  hold(waitMs: number): boolean {
    if (waitMs > this.lead() + MIN_LEAD_MS || this.#held >= this.maxHeld) return false;
    this.#held++;
    return true;
  }

  done(): void {
    this.#held = Math.max(0, this.#held - 1);
  }
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
