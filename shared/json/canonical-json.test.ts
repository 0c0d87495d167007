import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import type { JsonValue } from './json.js';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJson, deepJsonText, randomJson } from '../../test/support/json-values.js';
import { slowIt } from '../../test/support/slow-it.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('is valid JSON for the same value', () => {
    const value: JsonValue = { ü: 'x', '"q"': [true, false, -0.5, 1e21], __proto__x: 'y', '': '' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('skips undefined-valued keys as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined } as unknown as JsonValue)).toBe('{"a":1}');
  });
});

/** The recursive definition this module replaced: the iterative one must write the same text. */
function recursiveCanonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => recursiveCanonical(item ?? null)).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${recursiveCanonical(item)}`);
  }
  return `{${parts.join(',')}}`;
}

describe('canonicalJson without recursion', () => {
  slowIt('writes what the recursive definition wrote (seeded values), so argsHash is unchanged', () => {
    const next = seededRandom(5);
    for (let i = 0; i < 3_000; i++) {
      const value = randomJson(next, { maxDepth: 1 + (i % 6), maxWidth: 1 + (i % 8) });
      expect(canonicalJson(value)).toBe(recursiveCanonical(value));
    }
    expect(canonicalJson([[], {}, [[]], { a: [] }])).toBe('[[],{},[[]],{"a":[]}]');
  });

  slowIt('writes values nested 100,000 levels deep', () => {
    expect(canonicalJson(deepJson(100_000))).toBe(deepJsonText(100_000));
    expect(canonicalJson(deepJson(100_000, 'object'))).toBe(deepJsonText(100_000, 'object'));
  });
});
