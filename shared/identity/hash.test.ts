import { seededRandom } from '../../test/support/seeded-random.js';
import { describe, expect, it } from 'vitest';
import { argsHash, fnv1a64 } from './hash.js';
import { canonicalJson } from '../json/canonical-json.js';
import type { JsonValue } from '../json/json.js';

const random = seededRandom;

function jsonValue(next: () => number, depth = 0): JsonValue {
  const roll = next();
  if (depth > 3 || roll < 0.4) return [null, true, 1.5, -3, 'a', 'ü😀', ''][Math.floor(next() * 7)]!;
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => jsonValue(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 5) }, (_, i) => [
      `k${i}${Math.floor(next() * 3)}`,
      jsonValue(next, depth + 1),
    ]),
  );
}

/** The same value with object keys in reverse order, at every depth. */
function reversedKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe('fnv1a64', () => {
  it('matches the published 64-bit FNV-1a test vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });

  it('hashes UTF-8 bytes (non-ASCII and astral characters)', () => {
    // Reference computed with BigInt over TextEncoder bytes.
    const reference = (text: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text))
        h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, '0');
    };
    for (const text of ['héllo', '日本語', '😀 emoji', 'lone \ud800 surrogate', 'x'.repeat(300)])
      expect(fnv1a64(text)).toBe(reference(text));
    // Every boundary of UTF-8's byte counts, and surrogates alone, paired and reversed.
    const units = [0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd, 0xffff];
    for (const unit of units)
      expect(fnv1a64(String.fromCharCode(unit)), unit.toString(16)).toBe(reference(String.fromCharCode(unit)));
    for (const point of [0x10000, 0x10ffff])
      expect(fnv1a64(String.fromCodePoint(point))).toBe(reference(String.fromCodePoint(point)));
    for (const pair of ['\udfff\ud800', '\ud800\ud800', '\ud800\udc00x', 'a\uffffb'])
      expect(fnv1a64(pair)).toBe(reference(pair));
  });

  it('is always 16 hex digits, leading zeros included', () => {
    const hashes = Array.from({ length: 300 }, (_, i) => fnv1a64(`key ${i}`));
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{16}$/);
    // Among 300 hashes some half starts with a zero digit: the padding is exercised.
    expect(hashes.some((hash) => hash.startsWith('0') || hash[8] === '0')).toBe(true);
  });
});

describe('argsHash', () => {
  it('ignores key order at every depth (seeded values)', () => {
    const next = random(7);
    for (let i = 0; i < 300; i++) {
      const value = jsonValue(next);
      expect(argsHash(reversedKeys(value))).toBe(argsHash(value));
    }
  });

  it('differs for different values', () => {
    const next = random(11);
    const byHash = new Map<string, string>();
    for (let i = 0; i < 2_000; i++) {
      const value = jsonValue(next);
      const text = canonicalJson(value);
      const hash = argsHash(value);
      if (byHash.has(hash)) expect(byHash.get(hash)).toBe(text);
      byHash.set(hash, text);
    }
    expect(argsHash({ page: 1 })).not.toBe(argsHash({ page: 2 }));
    expect(argsHash({ page: 1 })).not.toBe(argsHash({ page: '1' }));
    expect(argsHash([1, 2])).not.toBe(argsHash([2, 1]));
    expect(argsHash({ a: { b: 1 } })).not.toBe(argsHash({ a: { c: 1 } }));
  });

  it('is 16 lowercase hex digits', () => {
    expect(argsHash({ customer_id: 'C-9921' })).toMatch(/^[0-9a-f]{16}$/);
  });
});
