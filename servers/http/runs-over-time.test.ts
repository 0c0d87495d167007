/** The runs page's time buckets: at most 12 of a round width, the newest ending now or at `to`, the oldest cut at `from`. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW_MS, MAX_TIME_BUCKETS, timeBuckets } from './runs-over-time.js';

const NOW = Date.parse('2026-12-08T15:23:30.000Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('timeBuckets', () => {
  it('is the last 12 hours by the hour when the filters name no time', () => {
    const { from, to, bucketMs, bounds } = timeBuckets({}, NOW);
    expect([from, to, bucketMs]).toEqual([NOW - DEFAULT_WINDOW_MS, NOW, HOUR]);
    expect(bounds).toHaveLength(12);
    expect(bounds.at(-1)).toEqual([NOW - HOUR, NOW]);
    expect(bounds[0]).toEqual([NOW - 12 * HOUR, NOW - 11 * HOUR]);
    // Adjacent: each bucket starts where the one before ends.
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]![0]).toBe(bounds[i - 1]![1]);
  });

  it("cuts the filters' range into round buckets, the oldest shortened at from", () => {
    const week = timeBuckets({ from: iso(NOW - 7 * 24 * HOUR) }, NOW);
    expect(week.bucketMs).toBe(24 * HOUR);
    expect(week.bounds).toHaveLength(7);
    const odd = timeBuckets({ from: iso(NOW - 100 * 60_000), to: iso(NOW - 10 * 60_000) }, NOW);
    expect(odd.bucketMs).toBe(15 * 60_000);
    expect(odd.bounds).toHaveLength(6);
    expect(odd.bounds[0]).toEqual([NOW - 100 * 60_000, NOW - 85 * 60_000]);
    expect(odd.bounds.at(-1)).toEqual([NOW - 25 * 60_000, NOW - 10 * 60_000]);
  });

  it('never asks for more than 12 buckets, however long the range', () => {
    for (const days of [0.01, 1, 3, 40, 365, 3650]) {
      const { bounds, bucketMs } = timeBuckets({ from: iso(NOW - days * 24 * HOUR) }, NOW);
      expect(bounds.length).toBeGreaterThan(0);
      expect(bounds.length).toBeLessThanOrEqual(MAX_TIME_BUCKETS);
      expect(bounds[0]![0]).toBe(NOW - days * 24 * HOUR);
      expect(bucketMs * bounds.length).toBeGreaterThanOrEqual(days * 24 * HOUR);
    }
  });

  it('ends at now when to is later, and is empty for a range that starts after it ends', () => {
    expect(timeBuckets({ to: iso(NOW + HOUR) }, NOW).to).toBe(NOW);
    expect(timeBuckets({ from: iso(NOW + 60_000) }, NOW).bounds).toEqual([]);
    expect(timeBuckets({ from: iso(NOW - HOUR), to: iso(NOW - 2 * HOUR) }, NOW).bounds).toEqual([]);
  });
});
