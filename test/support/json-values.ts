/**
 * Seeded JSON values for property tests: nested and wide, with the strings and keys that break
 * naive code (escapes, control characters, astral and lone surrogates, `__proto__`, integer-like
 * keys, an empty key). Reproducible from the PRNG they are given.
 */
import type { JsonValue } from '../../shared/json/json.js';

const STRINGS = [
  '',
  'a',
  'ü',
  '日本語',
  '😀',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  '\u0000\u0001\u001f',
  'lone \ud800 high',
  'lone \udc00 low',
  '\u2028\u2029',
  'x'.repeat(40),
];
const KEYS = ['a', 'b', 'id', '__proto__', 'constructor', '0', '10', '2', '', 'ü', 'k"q', 'toString'];
const NUMBERS = [0, -0, 1, -1, 1.5, -3.25, 1e21, 1e-7, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE];

export interface JsonValueShape {
  /** Containers stop nesting beyond this depth. Default 4. */
  readonly maxDepth?: number;
  /** Most items per container. Default 5. */
  readonly maxWidth?: number;
}

/** One random JSON value. */
export function randomJson(next: () => number, shape: JsonValueShape = {}, depth = 0): JsonValue {
  const { maxDepth = 4, maxWidth = 5 } = shape;
  const roll = next();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  if (depth >= maxDepth || roll < 0.35) {
    const kind = next();
    if (kind < 0.15) return null;
    if (kind < 0.3) return next() < 0.5;
    if (kind < 0.55) return pick(NUMBERS);
    return pick(STRINGS);
  }
  const width = Math.floor(next() * (maxWidth + 1));
  if (roll < 0.65) return Array.from({ length: width }, () => randomJson(next, shape, depth + 1));
  const entries: [string, JsonValue][] = [];
  for (let i = 0; i < width; i++)
    entries.push([next() < 0.5 ? pick(KEYS) : `k${i}`, randomJson(next, shape, depth + 1)]);
  return Object.fromEntries(entries); // defines own properties: `__proto__` stays data
}

/** `[[[…]]]` or `{"a":{"a":…}}` `depth` levels deep, built without recursion. */
export function deepJson(depth: number, kind: 'array' | 'object' = 'array', leaf: JsonValue = 1): JsonValue {
  let value: JsonValue = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** The JSON text of `deepJson(depth, kind)`, built as text (JSON.stringify overflows near depth 5,000). */
export function deepJsonText(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** UTF-8 bytes of JSON.stringify(value): the reference a measurement must match. */
export function referenceJsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
