/**
 * Reading and writing JSON values by dotted path (`items.0.sku`), the path form of Cairn's
 * `FieldIssue.path`. Pure; `setAtPath` copies along the path and never mutates its input.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json/json.js';

/** The value at `path`, or `undefined` when any step is missing. An empty path is the root. */
export function getAtPath(root: JsonValue, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const key of segments(path)) {
    if (Array.isArray(value)) value = value[Number(key)];
    else if (isJsonObject(value)) value = Object.hasOwn(value, key) ? value[key] : undefined;
    else return undefined;
  }
  return value;
}

/** A copy of `root` with `value` at `path`, creating objects (arrays, for numeric keys) on the way. */
export function setAtPath(root: JsonObject, path: string, value: JsonValue): JsonObject {
  const keys = segments(path);
  const [first, ...rest] = keys;
  if (first === undefined) return root;
  return { ...root, [first]: assign(root[first], rest, value) };
}

function assign(node: JsonValue | undefined, keys: readonly string[], value: JsonValue): JsonValue {
  const [key, ...rest] = keys;
  if (key === undefined) return value;
  if (Array.isArray(node) || (node === undefined && /^\d+$/.test(key))) {
    const copy = Array.isArray(node) ? [...node] : [];
    copy[Number(key)] = assign(copy[Number(key)], rest, value);
    return copy;
  }
  const object = isJsonObject(node) ? node : {};
  return { ...object, [key]: assign(object[key], rest, value) };
}

function segments(path: string): string[] {
  return path === '' ? [] : path.split('.');
}
