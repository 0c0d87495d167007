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

/** Deeper values are refused rather than risking the stack. */
export const MAX_JSON_DEPTH = 256;

/**
 * `value` as JSON, following JSON.stringify's own rules where they lose nothing: `toJSON` is
 * used (dates become strings), object keys whose value is undefined are dropped, `-0` becomes 0,
 * and a top-level `undefined` (a tool that returns nothing) becomes `null`. Refused: functions,
 * symbols, BigInt, NaN and ±Infinity, undefined inside arrays, Map/Set and other objects JSON would
 * empty, and cycles.
 */
export function toJsonValue(value: unknown): JsonSafeResult {
  if (value === undefined) return { ok: true, value: null };
  try {
    return { ok: true, value: convert(value, [], new Set(), '') };
  } catch (err) {
    if (err instanceof NotJson) {
      const where = err.path.length === 0 ? 'the top level' : `\`${dottedPath(err.path)}\``;
      return { ok: false, path: dottedPath(err.path), message: `${err.found} at ${where} is not JSON; ${err.advice}.` };
    }
    throw err;
  }
}

class NotJson extends Error {
  constructor(
    readonly path: readonly (string | number)[],
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

function convert(value: unknown, path: (string | number)[], ancestors: Set<object>, key: string, useToJson = true): JsonValue {
  if (path.length > MAX_JSON_DEPTH) throw new NotJson(path, `a value nested over ${MAX_JSON_DEPTH} levels deep`, 'flatten it');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value === 0 ? 0 : value;
    throw new NotJson(path, String(value), 'use null or a string instead');
  }
  if (typeof value === 'bigint') throw new NotJson(path, `BigInt ${value}n`, 'convert it to a number or a string');
  if (typeof value === 'undefined') throw new NotJson(path, 'undefined', 'use null instead');
  if (typeof value === 'function') throw new NotJson(path, `function ${value.name || '(anonymous)'}`, 'return data, not code');
  if (typeof value === 'symbol') throw new NotJson(path, String(value), 'use a string instead');
  const object = value as object;
  if (ancestors.has(object)) throw new NotJson(path, 'a circular reference', 'return a tree, not a graph');
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (useToJson && typeof toJSON === 'function') {
    // Like JSON.stringify: toJSON once per value, not again on what it returns.
    ancestors.add(object);
    const replaced = convert(toJSON.call(object, key), path, ancestors, key, false);
    ancestors.delete(object);
    return replaced;
  }
  for (const [found, test] of UNSUPPORTED) {
    if (test(object)) throw new NotJson(path, found, 'convert it to plain objects, arrays, strings and numbers');
  }
  ancestors.add(object);
  let result: JsonValue;
  if (Array.isArray(object)) {
    result = object.map((item: unknown, index) => convert(item, [...path, index], ancestors, String(index)));
  } else {
    const entries: [string, JsonValue][] = [];
    for (const name of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[name];
      if (item !== undefined) entries.push([name, convert(item, [...path, name], ancestors, name)]);
    }
    // fromEntries defines own properties, so a `__proto__` key stays data.
    result = Object.fromEntries(entries) as JsonObject;
  }
  ancestors.delete(object);
  return result;
}
