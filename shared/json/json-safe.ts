/**
 * Turning whatever a tool or hook returned into a JsonValue, or saying exactly what is not JSON
 * and where. Values cross the activity boundary and enter history, so silent loss (a Map that
 * becomes `{}`, NaN that becomes `null`) is refused instead. Workflow-safe, deterministic.
 */
import type { JsonObject, JsonValue } from './json.js';
import { dottedPath } from './dotted-path.js';

export type JsonSafeResult =
  | { readonly ok: true; readonly value: JsonValue }
  | {
      readonly ok: false;
      /** Dotted path of the offending value; empty for the top level. */
      readonly path: string;
      /** One sentence: what was found where, and what to do instead. */
      readonly message: string;
    };

/** Deeper values are refused: a tool result 256 levels deep is a bug, not data. */
export const MAX_JSON_DEPTH = 256;

/**
 * `value` as JSON, following JSON.stringify's own rules where they lose nothing: `toJSON` is
 * used (dates become strings), object keys whose value is undefined are dropped, `-0` becomes 0,
 * and a top-level `undefined` (a tool that returns nothing) becomes `null`. Refused: functions,
 * symbols, BigInt, NaN and ±Infinity, undefined inside arrays, Map/Set and other objects JSON would
 * empty, cycles, and values nested deeper than MAX_JSON_DEPTH. Iterative, and paths are built
 * only for the message of a refusal, so the cost is linear in the size of the value.
 */
export function toJsonValue(value: unknown): JsonSafeResult {
  if (value === undefined) return { ok: true, value: null };
  try {
    return { ok: true, value: convert(value) };
  } catch (err) {
    if (err instanceof NotJson) {
      const path = pathKeys(err.path);
      const where = path.length === 0 ? 'the top level' : `\`${dottedPath(path)}\``;
      return { ok: false, path: dottedPath(path), message: `${err.found} at ${where} is not JSON; ${err.advice}.` };
    }
    throw err;
  }
}

/** A path as a linked list from the leaf up: shared by siblings, never copied. */
type Path = { readonly key: string | number; readonly parent: Path; readonly length: number } | undefined;

function pathKeys(path: Path): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let node = path; node; node = node.parent) keys.push(node.key);
  return keys.reverse();
}

class NotJson extends Error {
  constructor(
    readonly path: Path,
    readonly found: string,
    readonly advice: string,
  ) {
    super(found);
  }
}

const UNSUPPORTED: readonly [string, (value: object) => boolean][] = [
  ['a Map', (v) => v instanceof Map],
  ['a Set', (v) => v instanceof Set],
  ['a WeakMap', (v) => v instanceof WeakMap],
  ['a WeakSet', (v) => v instanceof WeakSet],
  ['a RegExp', (v) => v instanceof RegExp],
  ['an Error', (v) => v instanceof Error],
  ['binary data', (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v)],
  ['a Promise (missing await?)', (v) => typeof (v as { then?: unknown }).then === 'function'],
];

/** A container being converted. */
interface Frame {
  readonly source: object;
  /** The object whose `toJSON` produced `source`: an ancestor too, for cycle detection. */
  readonly owner: object | undefined;
  readonly path: Path;
  /** Own enumerable keys of an object; null for an array. */
  readonly keys: readonly string[] | null;
  readonly length: number;
  index: number;
  readonly items: JsonValue[];
  readonly entries: [string, JsonValue][];
}

const OPEN = Symbol('open');

function convert(root: unknown): JsonValue {
  const frames: Frame[] = [];
  const ancestors = new Set<object>();
  let result: JsonValue = null;
  const place = (value: JsonValue): void => {
    const top = frames[frames.length - 1];
    if (top === undefined) result = value;
    else if (top.keys === null) top.items.push(value);
    else top.entries.push([top.keys[top.index - 1]!, value]);
  };

  /** A leaf's JSON value, or OPEN after pushing a frame for a container. */
  const start = (value: unknown, path: Path, key: string): JsonValue | typeof OPEN => {
    if ((path?.length ?? 0) > MAX_JSON_DEPTH)
      throw new NotJson(path, `a value nested over ${MAX_JSON_DEPTH} levels deep`, 'flatten it');
    let owner: object | undefined;
    let current = value;
    for (;;) {
      if (current === null || typeof current === 'string' || typeof current === 'boolean') return done(current);
      if (typeof current === 'number') {
        if (Number.isFinite(current)) return done(current === 0 ? 0 : current);
        throw new NotJson(path, String(current), 'use null or a string instead');
      }
      if (typeof current === 'bigint')
        throw new NotJson(path, `BigInt ${current}n`, 'convert it to a number or a string');
      if (typeof current === 'undefined') throw new NotJson(path, 'undefined', 'use null instead');
      if (typeof current === 'function')
        throw new NotJson(path, `function ${current.name || '(anonymous)'}`, 'return data, not code');
      if (typeof current === 'symbol') throw new NotJson(path, String(current), 'use a string instead');
      const object = current as object;
      if (ancestors.has(object)) throw new NotJson(path, 'a circular reference', 'return a tree, not a graph');
      const toJSON = (object as { toJSON?: unknown }).toJSON;
      if (owner === undefined && typeof toJSON === 'function') {
        // Like JSON.stringify: toJSON once per value, not again on what it returns.
        owner = object;
        ancestors.add(owner);
        current = toJSON.call(object, key);
        continue;
      }
      for (const [found, test] of UNSUPPORTED) {
        if (test(object)) throw new NotJson(path, found, 'convert it to plain objects, arrays, strings and numbers');
      }
      ancestors.add(object);
      const keys = Array.isArray(object) ? null : Object.keys(object);
      const length = keys === null ? (object as unknown[]).length : keys.length;
      frames.push({ source: object, owner, path, keys, length, index: 0, items: [], entries: [] });
      return OPEN;
    }
    function done(leaf: JsonValue): JsonValue {
      if (owner !== undefined) ancestors.delete(owner);
      return leaf;
    }
  };

  const first = start(root, undefined, '');
  if (first !== OPEN) return first;
  for (;;) {
    const top = frames[frames.length - 1];
    if (top === undefined) return result;
    if (top.index >= top.length) {
      frames.pop();
      ancestors.delete(top.source);
      if (top.owner !== undefined) ancestors.delete(top.owner);
      // fromEntries defines own properties, so a `__proto__` key stays data.
      place(top.keys === null ? top.items : (Object.fromEntries(top.entries) as JsonObject));
      continue;
    }
    const index = top.index++;
    let item: unknown;
    let key: string;
    if (top.keys === null) {
      item = (top.source as unknown[])[index];
      key = String(index);
    } else {
      key = top.keys[index]!;
      item = (top.source as Record<string, unknown>)[key];
      if (item === undefined) continue;
    }
    const path: Path = { key: top.keys === null ? index : key, parent: top.path, length: (top.path?.length ?? 0) + 1 };
    const leaf = start(item, path, key);
    if (leaf !== OPEN) place(leaf);
  }
}
