import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJson, randomJson, referenceJsonBytes } from '../../test/support/json-values.js';
import { jsonSize, measureJson, stringBytes, utf8Bytes } from './json-measure.js';
import { slowIt } from '../../test/support/slow-it.js';

describe('measureJson', () => {
  slowIt('counts exactly the UTF-8 bytes of JSON.stringify (seeded values, wide and nested)', () => {
    const next = seededRandom(21);
    for (let i = 0; i < 2_000; i++) {
      const value = randomJson(next, { maxDepth: 1 + (i % 7), maxWidth: 1 + (i % 9) });
      expect(measureJson(value).bytes, JSON.stringify(value)).toBe(referenceJsonBytes(value));
    }
  });

  it('follows JSON.stringify for values that are not plain JSON', () => {
    const value = { u: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1, NaN, Infinity, -0], n: null };
    expect(measureJson(value).bytes).toBe(referenceJsonBytes(value));
  });

  it('reports depth: 0 for a primitive, 1 for an empty container', () => {
    expect(measureJson('x').depth).toBe(0);
    expect(measureJson([]).depth).toBe(1);
    expect(measureJson({ a: [{ b: [] }] }).depth).toBe(4);
    // The deepest branch counts, not the last one.
    expect(measureJson([[[]], []]).depth).toBe(3);
  });

  it('counts booleans as their words and a BigInt as its digits', () => {
    expect([measureJson(true).bytes, measureJson(false).bytes]).toStrictEqual([4, 5]);
    expect(measureJson([false, true]).bytes).toBe('[false,true]'.length);
    expect(measureJson(12_345n).bytes).toBe(5);
  });

  slowIt('measures 200,000 levels without recursion', () => {
    const measured = measureJson(deepJson(200_000, 'object'));
    expect(measured).toEqual({ bytes: '{"a":'.length * 200_000 + 1 + 200_000, depth: 200_000 });
  });

  it('stops at the first container past maxDepth', () => {
    expect(measureJson(deepJson(100), { maxDepth: 64 })).toMatchObject({ depth: 65, stopped: 'depth' });
    expect(measureJson(deepJson(64), { maxDepth: 64 }).stopped).toBeUndefined();
  });

  it('stops early past maxBytes, without walking the rest', () => {
    const wide = Array.from({ length: 1_000_000 }, (_, i) => ({ i }));
    const measured = measureJson(wide, { maxBytes: 1_000 });
    expect(measured.stopped).toBe('bytes');
    expect(measured.bytes).toBeGreaterThan(1_000);
    expect(measured.bytes).toBeLessThan(1_100);
    expect(measureJson('x'.repeat(10_000_000), { maxBytes: 100 }).stopped).toBe('bytes');
  });

  it('names cycles and unreadable values instead of throwing', () => {
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic.a as unknown[]).push(cyclic);
    expect(measureJson(cyclic).stopped).toBe('cycle');
    const shared = { x: 1 };
    expect(measureJson([shared, shared]).stopped).toBeUndefined(); // shared, not cyclic
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(measureJson({ ok: 1, bad: getter }).stopped).toBe('unreadable');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(measureJson([proxy]).stopped).toBe('unreadable');
  });
});

describe('jsonSize', () => {
  it('is exact under the limit, above it when over, Infinity for a cycle', () => {
    expect(jsonSize({ a: 'ü' })).toBe(referenceJsonBytes({ a: 'ü' }));
    expect(jsonSize('x'.repeat(500), 100)).toBeGreaterThan(100);
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(jsonSize(cyclic)).toBe(Number.POSITIVE_INFINITY);
  });

  it('is Infinity for a value it cannot read, and reads nothing past the limit', () => {
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(jsonSize({ bad: getter })).toBe(Number.POSITIVE_INFINITY);
    // Over the limit before the getter: it is never read.
    expect(jsonSize(['x'.repeat(200), getter], 100)).toBeGreaterThan(100);
    expect(jsonSize(['x'.repeat(200), getter], 100)).toBeLessThan(Number.POSITIVE_INFINITY);
  });
});

describe('stringBytes and utf8Bytes', () => {
  it('agree with TextEncoder', () => {
    for (const text of ['', 'abc', 'ü', '日本', '😀', 'a\ud800b', '\udc00', '\n\t\u0001"\\', '\u2028']) {
      expect(stringBytes(text), text).toBe(referenceJsonBytes(text));
      expect(utf8Bytes(text), text).toBe(new TextEncoder().encode(text).length);
    }
  });

  it('agree with TextEncoder and JSON.stringify at every boundary of the encodings', () => {
    const units = [
      ...Array.from({ length: 0x21 }, (_, c) => c),
      0x22,
      0x5c,
      0x7f,
      0x80,
      0x7ff,
      0x800,
      0xd7ff,
      0xd800,
      0xdbff,
      0xdc00,
      0xdfff,
      0xe000,
      0xffff,
    ];
    const texts = units.map((c) => String.fromCharCode(c));
    for (const [high, low] of [
      [0xd800, 0xdc00],
      [0xdbff, 0xdfff],
      [0xd800, 0xdfff],
      [0xdbff, 0xdc00],
      [0xdc00, 0xdc00],
      [0xdfff, 0xd800],
      [0xd7ff, 0xdc00],
      [0xe000, 0xdc00],
    ] as const)
      texts.push(String.fromCharCode(high, low), `a${String.fromCharCode(high, low)}b`);
    for (const text of texts) {
      const label = text
        .split('')
        .map((ch) => ch.charCodeAt(0).toString(16))
        .join(' ');
      expect(stringBytes(text), label).toBe(referenceJsonBytes(text));
      expect(utf8Bytes(text), label).toBe(new TextEncoder().encode(text).length);
    }
  });

  it('stops early only above the budget, and exactly at it measures the text', () => {
    expect(stringBytes('é', 3)).toBeGreaterThan(3);
    expect(stringBytes('é', 4)).toBe(4);
    expect(stringBytes('abc', 5)).toBe(5);
  });
});
