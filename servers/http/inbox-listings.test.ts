import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InboxListings } from './inbox-listings.js';

/** A listing function whose calls resolve when told, each with its call number. */
function lister() {
  let calls = 0;
  const held: (() => void)[] = [];
  const list = () => new Promise<number>((ok) => held.push(() => ok(++calls)));
  return {
    list,
    get started() {
      return calls + held.length;
    },
    /** Resolves the held call at `index` (the oldest by default). */
    release: (index = 0) => held.splice(index, 1)[0]!(),
  };
}

const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('InboxListings', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('shares the listing in flight and reuses it within the window; tenants list apart', async () => {
    const listings = new InboxListings<number>(1_000);
    const l = lister();
    const [a, b] = [listings.get('acme', l.list), listings.get('acme', l.list)];
    l.release();
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    later(900);
    expect(await listings.get('acme', l.list)).toBe(1);
    const other = listings.get('globex', l.list);
    l.release();
    expect(await other).toBe(2);
    expect(l.started).toBe(2);
  });

  it('past the window, answers at once with the last listing while a fresh one runs for the next reads', async () => {
    const listings = new InboxListings<number>(1_000, 15_000);
    const l = lister();
    const first = listings.get('acme', l.list);
    l.release();
    expect(await first).toBe(1);
    later(2_500);
    expect(await listings.get('acme', l.list)).toBe(1);
    expect(l.started).toBe(2);
    // A read while that fresh one runs shares it, and is answered from the last meanwhile.
    expect(await listings.get('acme', l.list)).toBe(1);
    expect(l.started).toBe(2);
    l.release();
    await settled();
    expect(await listings.get('acme', l.list)).toBe(2);
    expect(l.started).toBe(2);
  });

  it('never answers with a listing older than staleMs: the read waits for a fresh one', async () => {
    const listings = new InboxListings<number>(1_000, 15_000);
    const l = lister();
    const first = listings.get('acme', l.list);
    l.release();
    await first;
    later(15_001);
    const read = listings.get('acme', l.list);
    let answered: number | undefined;
    void read.then((n) => (answered = n));
    await settled();
    expect(answered).toBeUndefined();
    l.release();
    expect(await read).toBe(2);
  });

  it('forgets on an act: the next read waits for a listing made after it, not one in flight before it', async () => {
    const listings = new InboxListings<number>(1_000);
    const l = lister();
    const first = listings.get('acme', l.list);
    l.release();
    await first;
    later(2_000);
    void listings.get('acme', l.list); // answered with 1; listing 2 runs in the background
    listings.forget('acme');
    const afterAct = listings.get('acme', l.list);
    expect(l.started).toBe(3);
    l.release(1);
    expect(await afterAct).toBe(2);
    l.release(); // the listing begun before the act ends last: not kept
    await settled();
    expect(await listings.get('acme', l.list)).toBe(2);
  });

  it('never keeps a failed listing; a failed refresh leaves the last one answering until it is stale', async () => {
    const listings = new InboxListings<number>(1_000, 15_000);
    await expect(listings.get('acme', () => Promise.reject(new Error('unavailable')))).rejects.toThrow('unavailable');
    expect(await listings.get('acme', () => Promise.resolve(7))).toBe(7);
    later(2_000);
    expect(await listings.get('acme', () => Promise.reject(new Error('unavailable')))).toBe(7);
    await settled();
    later(14_000);
    await expect(listings.get('acme', () => Promise.reject(new Error('still down')))).rejects.toThrow('still down');
  });

  it('reuseMs 0: every read lists afresh, reads in flight share, no answer from memory', async () => {
    const listings = new InboxListings<number>(0);
    const l = lister();
    const [a, b] = [listings.get('acme', l.list), listings.get('acme', l.list)];
    l.release();
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    const next = listings.get('acme', l.list);
    expect(l.started).toBe(2);
    l.release();
    expect(await next).toBe(2);
  });
});
