/**
 * Canonical JSON: one text per value, whatever the key order it was built with. Object keys are
 * sorted (by UTF-16 code units, like `Array.prototype.sort`) at every depth; arrays keep their
 * order. The basis of `argsHash`, so `{a, b}` and `{b, a}` count as the same call.
 * Iterative: a value nested 1,000,000 levels deep is written, not a stack overflow (values from
 * models and tools are bounded before they get here; this must not be the weak spot).
 * Workflow-safe, deterministic.
 */
import type { JsonValue } from './json.js';

interface Frame {
  readonly container: readonly JsonValue[] | { readonly [key: string]: JsonValue | undefined };
  /** Sorted keys for an object; null for an array. */
  readonly keys: readonly string[] | null;
  index: number;
  wrote: boolean;
}

/** The canonical JSON text of `value`. Keys whose value is undefined are skipped, as JSON does. */
export function canonicalJson(value: JsonValue): string {
  let out = '';
  const frames: Frame[] = [];
  let next: JsonValue | undefined = value;
  for (;;) {
    if (next !== undefined) {
      if (next === null || typeof next !== 'object') out += JSON.stringify(next) ?? 'null';
      else if (Array.isArray(next)) {
        out += '[';
        frames.push({ container: next, keys: null, index: 0, wrote: false });
      } else {
        out += '{';
        frames.push({ container: next, keys: Object.keys(next).sort(), index: 0, wrote: false });
      }
      next = undefined;
    }
    const top = frames[frames.length - 1];
    if (top === undefined) return out;
    if (top.keys === null) {
      const items = top.container as readonly (JsonValue | undefined)[];
      if (top.index >= items.length) {
        out += ']';
        frames.pop();
        continue;
      }
      if (top.index > 0) out += ',';
      next = items[top.index++] ?? null;
    } else {
      if (top.index >= top.keys.length) {
        out += '}';
        frames.pop();
        continue;
      }
      const key = top.keys[top.index++]!;
      const item = (top.container as { readonly [key: string]: JsonValue | undefined })[key];
      if (item === undefined) continue;
      if (top.wrote) out += ',';
      top.wrote = true;
      out += `${JSON.stringify(key)}:`;
      next = item;
    }
  }
}
