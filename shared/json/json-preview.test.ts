import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJson, deepJsonText, randomJson } from '../../test/support/json-values.js';
import { jsonPreview } from './json-preview.js';
import { renderValue } from './bounded-text.js';
import { slowIt } from '../../test/support/slow-it.js';

describe('jsonPreview', () => {
  slowIt('is JSON.stringify when it fits, and a prefix of it when cut (seeded values)', () => {
    const next = seededRandom(13);
    for (let i = 0; i < 2_000; i++) {
      const value = randomJson(next, { maxDepth: 1 + (i % 6), maxWidth: 1 + (i % 8) });
      const full = JSON.stringify(value);
      expect(jsonPreview(value, 1_000_000)).toEqual({ text: full, complete: true });
      const max = i % 50;
      const cut = jsonPreview(value, max)!;
      if (cut.complete) expect(cut.text).toBe(full);
      else {
        expect(cut.text.length).toBeGreaterThan(max);
        expect(full.startsWith(cut.text.slice(0, max))).toBe(true);
      }
    }
  });

  it('is JSON.stringify when it fits, even exactly, and a short prefix of it at every cut before', () => {
    const shared = { k: [1] };
    const keyed = { toJSON: (key: string) => `key:${key}` };
    const values: unknown[] = [
      false,
      true,
      'plain text that is rather long',
      'quote " backslash \\ newline \n tab \t',
      { keyed, list: [keyed, () => 1, Symbol('s'), undefined], f: () => 1, s: Symbol('s'), u: undefined, n: null },
      [shared, shared, { inner: shared }],
      ['first', 'a second string, long enough to be cut'],
      keyed,
    ];
    for (const value of values) {
      const full = JSON.stringify(value);
      for (let max = 0; max <= full.length + 1; max++) {
        const preview = jsonPreview(value, max);
        const label = `${full} at ${max}`;
        if (max >= full.length) expect(preview, label).toEqual({ text: full, complete: true });
        else {
          expect(preview?.complete, label).toBe(false);
          expect(full.startsWith(preview!.text), label).toBe(true);
          expect(preview!.text.length, label).toBeGreaterThan(max);
          expect(preview!.text.length, label).toBeLessThanOrEqual(max + 12);
        }
      }
    }
    expect(jsonPreview(Symbol('top'), 10)).toBeUndefined();
  });

  it('gives undefined when reading throws before the cut, and the cut when it throws after', () => {
    const list = Object.defineProperty(['abc'], 1, {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(jsonPreview(list, 7)).toBeUndefined();
    expect(jsonPreview(list, 6)).toEqual({ text: '["abc",', complete: false });
  });

  it('follows JSON.stringify for toJSON, boxed primitives and non-JSON members', () => {
    const value = {
      d: new Date(0),
      n: Object(3),
      s: Object('x'),
      u: undefined,
      f: () => 1,
      list: [undefined, Symbol('s'), NaN, -0],
      m: new Map([[1, 2]]),
    };
    expect(jsonPreview(value, 1_000)).toEqual({ text: JSON.stringify(value), complete: true });
    expect(jsonPreview(undefined, 10)).toBeUndefined();
    expect(jsonPreview(() => 1, 10)).toBeUndefined();
  });

  it('writes only about maxChars of a huge string or a wide value', () => {
    expect(jsonPreview('x'.repeat(10_000_000), 80)!.text.length).toBeLessThan(90);
    expect(
      jsonPreview(
        Array.from({ length: 1_000_000 }, (_, i) => i),
        80,
      )!.text.length,
    ).toBeLessThan(90);
    expect(jsonPreview('😀'.repeat(100), 11)!.text.slice(0, 11)).toBe(JSON.stringify('😀'.repeat(100)).slice(0, 11));
  });

  slowIt('handles values nested 100,000 levels deep (JSON.stringify throws near 5,000)', () => {
    expect(() => JSON.stringify(deepJson(100_000))).toThrow(RangeError);
    expect(jsonPreview(deepJson(100_000), 1_000_000)).toEqual({ text: deepJsonText(100_000), complete: true });
    expect(jsonPreview(deepJson(100_000), 20)).toEqual({ text: '['.repeat(21), complete: false });
  });

  it('gives undefined for what JSON.stringify throws on, unless the cut comes first', () => {
    const cyclic: unknown[] = [1];
    cyclic.push(cyclic);
    expect(jsonPreview(cyclic, 100)).toBeUndefined();
    expect(jsonPreview({ big: 1n }, 100)).toBeUndefined();
    expect(jsonPreview(['x'.repeat(50), cyclic], 10)).toMatchObject({ complete: false });
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(jsonPreview(getter, 100)).toBeUndefined();
  });
});

describe('renderValue', () => {
  it('quotes strings, names functions, BigInt, undefined and symbols', () => {
    expect(renderValue('shipping')).toBe('"shipping"');
    expect(renderValue({ a: [1] })).toBe('{"a":[1]}');
    expect(renderValue(function load() {})).toBe('function load');
    expect(renderValue(10n)).toBe('10n');
    expect(renderValue(undefined)).toBe('undefined');
    expect(renderValue(Symbol('s'))).toBe('Symbol(s)');
  });

  it('cuts long renderings with a marker, cheaply for huge values', () => {
    expect(renderValue('x'.repeat(100), 10)).toBe('"xxxxxxxxx… [more chars cut]');
    expect(renderValue({ a: 'y'.repeat(10_000_000) }, 12)).toBe('{"a":"yyyyyy… [more chars cut]');
    expect(renderValue(deepJson(50_000), 5)).toBe('[[[[[… [more chars cut]');
  });

  it('says when a value cannot be shown', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(renderValue(cyclic)).toBe('[a value that cannot be shown]');
    expect(renderValue([1n])).toBe('[a value that cannot be shown]');
  });
});
