/**
 * A worker's own pacing of a provider that refused it, with no configuration: after a 429 (or
 * 529/overloaded) the worker holds its calls to that provider until the retry-after has passed,
 * and from then on paces them at 90% of the rate the provider was taking (the calls it accepted in
 * the second before it refused), in a queue of reserved slots, so runs that were refused together
 * do not come back together. Every 2 s without a refusal the pace quickens by 10%, so a rate
 * learned low (refused while its calls were still ramping up) climbs back to the provider's; a
 * refusal while pacing slows it by 10% (once a second at most). Calls it holds are not sent: the model activity returns a `throttled`
 * outcome and the workflow waits on a timer. The pace is forgotten after a minute without a
 * refusal. Per worker and provider; flow control (flow-control.ts) shares limits across a fleet.
 * Worker side only.
 */

/** A minute without a refusal: the provider is taken at its word again. */
const FORGET_MS = 60_000;
/** The fraction of the observed rate the worker paces at. */
const HEADROOM = 0.9;
/** Without a refusal for this long, the pace quickens by SPEED_UP. */
const QUIET_MS = 2_000;
const SPEED_UP = 0.9;
/** Reservations older than this are dropped (their run went elsewhere or ended). */
const STALE_MS = 600_000;

export type PaceAdmission = { readonly go: true } | { readonly go: false; readonly waitMs: number };

export class LearnedPace {
  readonly #accepted: number[] = [];
  /** When calls went while pacing, the last second: no second holds more than the pace's share and one, however late calls come back. */
  readonly #sent: number[] = [];
  readonly #reservations = new Map<string, number>();
  #blockedUntil = 0;
  #interval = 0;
  #tat = 0;
  #lastRefusal = 0;
  #lastChange = 0;
  #lastSlowdown = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** Whether a call named `key` (the run and its model turn) may go now, or how long it waits for its slot. */
  admit(key: string, now: number): PaceAdmission {
    if (this.#interval > 0 && now - this.#lastRefusal > FORGET_MS) {
      this.#interval = 0;
      this.#reservations.clear();
    }
    const reserved = this.#reservations.get(key);
    if (reserved !== undefined) {
      if (reserved > now) return { go: false, waitMs: Math.ceil(reserved - now) };
      this.#reservations.delete(key);
      return this.#send(key, now);
    }
    if (this.#interval === 0) {
      // No rate learned (the provider refused before it took anything): past the block, spread over a second.
      return now < this.#blockedUntil
        ? { go: false, waitMs: Math.ceil(this.#blockedUntil - now + this.random() * 1_000) }
        : { go: true };
    }
    if (now - Math.max(this.#lastRefusal, this.#lastChange) >= QUIET_MS) {
      this.#interval *= SPEED_UP;
      this.#lastChange = now;
    }
    const slot = Math.max(now, this.#tat, this.#blockedUntil);
    this.#tat = slot + this.#interval;
    if (slot <= now) return this.#send(key, now);
    if (this.#reservations.size > 10_000)
      for (const [k, at] of this.#reservations) if (at < now - STALE_MS) this.#reservations.delete(k);
    this.#reservations.set(key, slot);
    return { go: false, waitMs: Math.ceil(slot - now) };
  }

  /** A call goes now, unless the last second already holds the pace's share and one: then it waits for room. */
  #send(key: string, now: number): PaceAdmission {
    while (this.#sent.length > 0 && this.#sent[0]! <= now - 1_000) this.#sent.shift();
    const share = Math.floor(1_000 / this.#interval) + 1;
    if (this.#interval > 0 && this.#sent.length >= share) {
      // Queued behind the reserved slots (not all at the same moment), once the second has room.
      const at = Math.max(this.#sent[0]! + 1_001, this.#tat);
      this.#tat = at + this.#interval;
      this.#reservations.set(key, at);
      return { go: false, waitMs: Math.ceil(at - now) };
    }
    if (this.#interval > 0) this.#sent.push(now);
    return { go: true };
  }

  /** The provider took a call. */
  accepted(now: number): void {
    this.#accepted.push(now);
    while (this.#accepted.length > 0 && this.#accepted[0]! <= now - 1_000) this.#accepted.shift();
  }

  /** The provider refused a call, asking for `retryAfterMs` (1 s when it did not say). */
  refused(now: number, retryAfterMs: number | undefined): void {
    this.#lastRefusal = now;
    this.#blockedUntil = Math.max(this.#blockedUntil, now + Math.min(retryAfterMs ?? 1_000, 60_000));
    while (this.#accepted.length > 0 && this.#accepted[0]! <= now - 1_000) this.#accepted.shift();
    const taken = this.#accepted.length;
    if (this.#interval === 0) {
      // The first refusal: the provider was taking `taken` a second.
      if (taken === 0) return;
      this.#interval = 1_000 / (taken * HEADROOM);
    } else if (now - this.#lastSlowdown >= 1_000) {
      // Refused while pacing: 10% slower, once a second at most (calls refused together are one refusal).
      this.#interval /= SPEED_UP;
    } else return;
    this.#lastChange = now;
    this.#lastSlowdown = now;
  }
}
