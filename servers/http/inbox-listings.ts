/**
 * A tenant's waiting runs, listed through visibility and shared by the inbox reads that follow.
 * Reads within `reuseMs` of a listing's start take that listing; a read after that still takes it
 * at once, while a fresh listing runs in the background for the reads that follow, as long as it
 * started at most `staleMs` ago; past that, or with none yet, the read waits for a fresh one.
 * Concurrent reads share the listing in flight. One listing of a thousand waiting runs costs
 * visibility 0.3–0.6 s on the dev server and cannot be paged in waiting order (its SQL refuses
 * ORDER BY), so readers polling every 2 s are answered from memory, each answer about one poll
 * old, and the tenant costs visibility at most one listing per `reuseMs`. The handler's own acts
 * (any POST of the tenant's) forget the tenant's listings, in flight or done: the next read waits
 * for a listing made after the act. Per handler instance; Node-only (client side).
 */
export class InboxListings<T> {
  readonly #entries = new Map<string, Entry<T>>();

  /** `reuseMs` ≤ 0: every read lists afresh (reads in flight still share), never a stale answer. */
  constructor(
    readonly reuseMs: number,
    readonly staleMs = STALE_MS,
  ) {}

  /** The listing under `key`: one recent enough, the one in flight, or a new one from `list`. */
  get(key: string, list: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const entry = this.#entries.get(key) ?? this.#add(key, now);
    const last = entry.listed;
    if (last && now - last.at <= this.reuseMs) return Promise.resolve(last.value);
    const pending = entry.pending ?? this.#list(key, entry, list, now);
    if (last && this.reuseMs > 0 && now - last.at <= this.staleMs) return Promise.resolve(last.value);
    return pending;
  }

  /** Forgets the listings under `key` (every key when undefined): the next reader waits for a new one. */
  forget(key?: string): void {
    if (key === undefined) this.#entries.clear();
    else this.#entries.delete(key);
  }

  #add(key: string, now: number): Entry<T> {
    if (this.#entries.size >= MAX_KEYS)
      for (const [k, e] of this.#entries)
        if (!e.pending && (!e.listed || now - e.listed.at > this.staleMs)) this.#entries.delete(k);
    const entry: Entry<T> = {};
    this.#entries.set(key, entry);
    return entry;
  }

  #list(key: string, entry: Entry<T>, list: () => Promise<T>, at: number): Promise<T> {
    const pending = list();
    entry.pending = pending;
    // Kept only while the entry is still the key's (not forgotten meanwhile); a failed listing is
    // never kept: the next reader tries again.
    pending.then(
      (value) => {
        if (entry.pending === pending) entry.pending = undefined;
        if (this.#entries.get(key) === entry) entry.listed = { at, value };
        if (this.reuseMs <= 0 && this.#entries.get(key) === entry && !entry.pending) this.#entries.delete(key);
      },
      () => {
        if (entry.pending === pending) entry.pending = undefined;
      },
    );
    return pending;
  }
}

interface Entry<T> {
  /** The newest listing done, and when it started (what it tells is at least that old). */
  listed?: { readonly at: number; readonly value: T };
  pending?: Promise<T>;
}

/** A listing older than this is never an answer: the read waits for a fresh one. */
const STALE_MS = 15_000;
/** Past this many tenants' listings, the stale ones are dropped before another is added. */
const MAX_KEYS = 1_000;
