import { describe, expect, it, vi } from 'vitest';
import { InboxListings } from './inbox-listings.js';

describe('InboxListings', () => {
  it('shares the listing in flight, reuses it within the window, lists afresh after it or once forgotten', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const listings = new InboxListings<number>(1_000);
      let calls = 0;
      let release!: () => void;
      const list = () => new Promise<number>((ok) => (calls++, (release = () => ok(calls))));
      const [a, b] = [listings.get('acme', list), listings.get('acme', list)];
      release();
      expect(await Promise.all([a, b])).toEqual([1, 1]);
      vi.setSystemTime(Date.now() + 900);
      expect(await listings.get('acme', list)).toBe(1);
      const other = listings.get('globex', list);
      release();
      expect(await other).toBe(2);
      vi.setSystemTime(Date.now() + 200);
      const later = listings.get('acme', list);
      release();
      expect(await later).toBe(3);
      listings.forget('acme');
      const forgotten = listings.get('acme', list);
      release();
      expect(await forgotten).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never reuses a failed listing', async () => {
    const listings = new InboxListings<number>(1_000);
    await expect(listings.get('acme', () => Promise.reject(new Error('unavailable')))).rejects.toThrow('unavailable');
    expect(await listings.get('acme', () => Promise.resolve(7))).toBe(7);
  });
});
