import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJson, randomJson, referenceJsonBytes } from '../../test/support/json-values.js';
import { MAX_CUTS_LISTED, describeCuts, fitJson } from './fit-json.js';
import type { JsonValue } from './json.js';
import { slowIt } from '../../test/support/slow-it.js';

/** True when `part` is `whole` cut along one path: every kept item equal, the last one possibly cut. */
function isPrefix(part: JsonValue, whole: JsonValue): boolean {
  if (typeof part === 'string' && typeof whole === 'string') return whole.startsWith(part);
  if (Array.isArray(part) && Array.isArray(whole)) {
    return part.every((item, i) =>
      i < part.length - 1 ? JSON.stringify(item) === JSON.stringify(whole[i]) : isPrefix(item, whole[i]!),
    );
  }
  if (
    part &&
    whole &&
    typeof part === 'object' &&
    typeof whole === 'object' &&
    !Array.isArray(part) &&
    !Array.isArray(whole)
  ) {
    const keys = Object.keys(part);
    const wholeKeys = Object.keys(whole);
    return keys.every(
      (key, i) =>
        key === wholeKeys[i] &&
        (i < keys.length - 1
          ? JSON.stringify(part[key]) === JSON.stringify(whole[key])
          : isPrefix(part[key]!, whole[key]!)),
    );
  }
  return part === null || JSON.stringify(part) === JSON.stringify(whole);
}

describe('fitJson', () => {
  it('keeps a value that fits as it is', () => {
    const value = { a: [1, 2], b: 'x' };
    expect(fitJson(value, 100)).toEqual({ value, cuts: [], moreCuts: 0 });
  });

  it('keeps whole items while they fit, cuts the next one, and says where', () => {
    const orders = Array.from({ length: 10_000 }, (_, i) => ({ id: `O-${i}`, notes: 'n'.repeat(100) }));
    const fitted = fitJson({ orders, page: 1, has_more: false }, 64 * 1024);
    expect(referenceJsonBytes(fitted.value)).toBeLessThanOrEqual(64 * 1024);
    expect(fitted.cuts[0]).toEqual({ path: '', unit: 'keys', kept: 1, total: 3 });
    expect(fitted.cuts).toHaveLength(2); // whole orders only: no half order at the end
    const kept = (fitted.value as { orders: unknown[] }).orders.length;
    expect(fitted.cuts[1]).toMatchObject({ path: 'orders', unit: 'items', kept: expect.any(Number), total: 10_000 });
    expect(kept).toBeGreaterThan(500);
    expect(describeCuts(fitted)).toMatch(/^the result keeps 1 of 3 keys; `orders` keeps \d+ of 10000 items$/);
  });

  it('cuts a huge string to what fits, without splitting a surrogate pair', () => {
    const fitted = fitJson({ text: '😀'.repeat(1_000_000) }, 1_000);
    expect(referenceJsonBytes(fitted.value)).toBeLessThanOrEqual(1_000);
    const text = (fitted.value as { text: string }).text;
    expect(text.length % 2).toBe(0);
    expect(fitted.cuts.at(-1)).toEqual({ path: 'text', unit: 'characters', kept: text.length, total: 2_000_000 });
  });

  it('keeps the most whole items and keys that fit, to the byte (brackets, commas, keys and colons counted)', () => {
    const items = ['aaaa', 'aaaa', 'aaaa']; // ["aaaa","aaaa","aaaa"]: 22 bytes
    expect(fitJson(items, 22).cuts).toEqual([]);
    expect(fitJson(items, 21)).toEqual({
      value: ['aaaa', 'aaaa'],
      cuts: [{ path: '', unit: 'items', kept: 2, total: 3 }],
      moreCuts: 0,
    });
    expect(fitJson(items, 15).value).toEqual(['aaaa', 'aaaa']);
    expect(fitJson(items, 14).value).toEqual(['aaaa']);
    expect(fitJson(items, 7)).toEqual({
      value: [],
      cuts: [{ path: '', unit: 'items', kept: 0, total: 3 }],
      moreCuts: 0,
    });
    const order = { a: 'xxxx', b: 'yyyy' }; // {"a":"xxxx","b":"yyyy"}: 23 bytes
    expect(fitJson(order, 23).cuts).toEqual([]);
    expect(fitJson(order, 22)).toEqual({
      value: { a: 'xxxx' },
      cuts: [{ path: '', unit: 'keys', kept: 1, total: 2 }],
      moreCuts: 0,
    });
    expect(fitJson(order, 12).value).toEqual({ a: 'xxxx' });
    expect(fitJson(order, 11)).toEqual({
      value: {},
      cuts: [{ path: '', unit: 'keys', kept: 0, total: 2 }],
      moreCuts: 0,
    });
  });

  it('cuts into the member that does not fit only when at least 32 bytes of it would, and counts it only then', () => {
    const long = 'x'.repeat(100);
    // {"a":"…"}: 6 bytes around the string leave 32 at a budget of 38, 31 at 37.
    expect(fitJson({ a: long }, 37)).toEqual({
      value: {},
      cuts: [{ path: '', unit: 'keys', kept: 0, total: 1 }],
      moreCuts: 0,
    });
    expect(fitJson({ a: long }, 38)).toEqual({
      value: { a: 'x'.repeat(30) },
      cuts: [
        { path: '', unit: 'keys', kept: 1, total: 1 },
        { path: 'a', unit: 'characters', kept: 30, total: 100 },
      ],
      moreCuts: 0,
    });
    expect(fitJson([long], 33)).toEqual({
      value: [],
      cuts: [{ path: '', unit: 'items', kept: 0, total: 1 }],
      moreCuts: 0,
    });
    expect(fitJson([long], 36)).toEqual({
      value: ['x'.repeat(32)],
      cuts: [
        { path: '', unit: 'items', kept: 1, total: 1 },
        { path: '0', unit: 'characters', kept: 32, total: 100 },
      ],
      moreCuts: 0,
    });
  });

  it('keeps the longest head of a string, escapes counted, surrogate pairs whole; a number or boolean that cannot fit is null', () => {
    expect(fitJson('"'.repeat(50), 20)).toEqual({
      value: '"'.repeat(9),
      cuts: [{ path: '', unit: 'characters', kept: 9, total: 50 }],
      moreCuts: 0,
    });
    // "ab😀😀" is 12 bytes: at 13 both pairs fit, though a head ending on a lone high surrogate would not.
    for (const budget of [12, 13]) expect(fitJson(`ab${'😀'.repeat(10)}`, budget).value).toBe('ab😀😀');
    expect(fitJson(`ab${'😀'.repeat(10)}`, 11).value).toBe('ab😀');
    expect(fitJson(123456, 3)).toEqual({ value: null, cuts: [], moreCuts: 0 });
    expect(fitJson(true, 2)).toEqual({ value: null, cuts: [], moreCuts: 0 });
  });

  it('describes the first cuts and counts the rest', () => {
    const cuts = [
      { path: '', unit: 'keys', kept: 1, total: 3 },
      { path: 'orders', unit: 'items', kept: 2, total: 9 },
      { path: 'orders.1', unit: 'keys', kept: 1, total: 2 },
      { path: 'orders.1.notes', unit: 'characters', kept: 5, total: 80 },
    ] as const;
    expect(describeCuts({ cuts, moreCuts: 2 })).toBe(
      'the result keeps 1 of 3 keys; `orders` keeps 2 of 9 items; `orders.1` keeps 1 of 2 keys; and 3 deeper cut(s)',
    );
    expect(describeCuts({ cuts: cuts.slice(0, 2), moreCuts: 0 })).toBe(
      'the result keeps 1 of 3 keys; `orders` keeps 2 of 9 items',
    );
  });

  slowIt('fits any seeded value within the budget, as a prefix of it', () => {
    const next = seededRandom(31);
    for (let i = 0; i < 1_500; i++) {
      const value = randomJson(next, { maxDepth: 1 + (i % 6), maxWidth: 2 + (i % 8) });
      const budget = 40 + Math.floor(next() * 400);
      const fitted = fitJson(value, budget);
      expect(referenceJsonBytes(fitted.value), JSON.stringify(value)).toBeLessThanOrEqual(Math.max(budget, 4));
      expect(isPrefix(fitted.value, value), JSON.stringify([fitted.value, value])).toBe(true);
      if (referenceJsonBytes(value) <= budget) expect(fitted.cuts).toEqual([]);
    }
  });

  it('walks a value nested 100,000 levels deep without recursion', () => {
    const fitted = fitJson(deepJson(100_000, 'object', 'x'.repeat(1_000)), 2_000);
    expect(referenceJsonBytes(fitted.value)).toBeLessThanOrEqual(2_000);
    expect(fitted.cuts).toHaveLength(MAX_CUTS_LISTED);
    expect(fitted.moreCuts).toBeGreaterThan(100);
    expect(describeCuts(fitted)).toMatch(/; and \d+ deeper cut\(s\)$/);
  });

  it('keeps __proto__ keys as data', () => {
    const value = JSON.parse(`{"__proto__": {"x": 1}, "big": "${'b'.repeat(500)}"}`) as JsonValue;
    const fitted = fitJson(value, 100);
    expect(Object.keys(fitted.value as object)).toEqual(['__proto__', 'big']);
  });
});
