/**
 * One visibility listing of a tenant's waiting runs, shared: readers that ask while a listing is
 * in flight wait for that one, and a listing that started at most `reuseMs` ago answers the next
 * readers too. Ten reviewers polling the inbox every 2 s then cause at most one listing per tenant
 * per window, not ten. The handler's own acts (any POST of the tenant's) forget the tenant's
 * listing, so a reviewer who just decided does not see the run again from this cache (visibility
 * itself may still lag the run by a moment). Per handler instance; Node-only (client side).
 */
export class InboxListings<T> {
  readonly #entries = new Map<string, { readonly at: number; readonly value: Promise<T>; done: boolean }>();

  constructor(readonly reuseMs: number) {}

  /** The listing under `key`: the one in flight, one that started at most `reuseMs` ago, or a new one from `list`. */
  get(key: string, list: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const entry = this.#entries.get(key);
    if (entry && (!entry.done || now - entry.at <= this.reuseMs)) return entry.value;
    if (this.#entries.size >= MAX_KEYS) this.#sweep(now);
    const fresh = { at: now, value: list(), done: false };
    this.#entries.set(key, fresh);
    fresh.value.then(
      () => {
        fresh.done = true;
        // Nothing to reuse: drop it now rather than at the next sweep.
        if (this.reuseMs <= 0 && this.#entries.get(key) === fresh) this.#entries.delete(key);
      },
      // A failed listing is never reused: the next reader tries again.
      () => this.#entries.get(key) === fresh && this.#entries.delete(key),
    );
    return fresh.value;
  }

  /** Forgets the listing under `key` (every key when undefined): the next reader lists afresh. */
  forget(key?: string): void {
    if (key === undefined) this.#entries.clear();
    else this.#entries.delete(key);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries)
      if (entry.done && now - entry.at > this.reuseMs) this.#entries.delete(key);
  }
}

/** Past this many tenants' listings, the expired ones are dropped before another is added. */
const MAX_KEYS = 1_000;
