/**
 * Measuring a value as JSON without building the text: its UTF-8 size and its nesting depth, in
 * one iterative pass that stops as soon as a limit is passed. Cheap enough to run on everything
 * that enters a workflow (Signals, Updates, Query answers, activity results), and safe on any
 * input: no recursion, so a value 1,000,000 levels deep is measured, not a stack overflow.
 * Workflow-safe, deterministic.
 */

/** What `measureJson` found. */
export interface JsonMeasure {
  /**
   * UTF-8 bytes of `JSON.stringify(value)`: exact when measuring finished; when it stopped early,
   * what was counted so far (for `stopped: 'bytes'`, a number above the limit).
   */
  readonly bytes: number;
  /** The deepest nesting seen: 0 for a primitive, 1 for `[]` or `{}`, 2 for `[[]]`. */
  readonly depth: number;
  /**
   * Why measuring stopped early: a limit was passed (`bytes`, `depth`), the value refers to
   * itself (`cycle`, which JSON cannot hold), or reading it threw (`unreadable`: a throwing getter
   * or a revoked proxy). Absent when the whole value was measured.
   */
  readonly stopped?: 'bytes' | 'depth' | 'cycle' | 'unreadable';
}

export interface MeasureLimits {
  /** Stop once more than this many bytes were counted. */
  readonly maxBytes?: number;
  /** Stop at the first container nested deeper than this. */
  readonly maxDepth?: number;
}

interface Frame {
  readonly container: object;
  /** Own enumerable keys for an object; null for an array. */
  readonly keys: readonly string[] | null;
  readonly length: number;
  readonly depth: number;
  index: number;
  wrote: boolean;
}

/**
 * Size and depth of `value` as JSON, following JSON.stringify for plain data: object keys whose
 * value is undefined, a function or a symbol are skipped, such array items count as `null`, and so
 * do NaN and ±Infinity. `toJSON` is not called (a Date counts as `{}`): measure data, not objects
 * with behaviour. Never throws.
 */
export function measureJson(value: unknown, limits: MeasureLimits = {}): JsonMeasure {
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  const maxDepth = limits.maxDepth ?? Number.POSITIVE_INFINITY;
  let bytes = 0;
  let depth = 0;
  const frames: Frame[] = [];
  const ancestors = new Set<object>();
  let next: unknown = value;
  let nextDepth = 0;
  let pending = true;
  try {
    for (;;) {
      if (pending) {
        pending = false;
        if (typeof next === 'object' && next !== null) {
          if (ancestors.has(next)) return { bytes, depth, stopped: 'cycle' };
          const level = nextDepth + 1;
          if (level > maxDepth) return { bytes, depth: level, stopped: 'depth' };
          if (level > depth) depth = level;
          const keys = Array.isArray(next) ? null : Object.keys(next);
          const length = keys === null ? (next as unknown[]).length : keys.length;
          frames.push({ container: next, keys, length, depth: level, index: 0, wrote: false });
          ancestors.add(next);
          bytes += 2;
        } else {
          bytes += primitiveBytes(next, maxBytes - bytes);
        }
        if (bytes > maxBytes) return { bytes, depth, stopped: 'bytes' };
      }
      const top = frames[frames.length - 1];
      if (top === undefined) return { bytes, depth };
      if (top.index >= top.length) {
        frames.pop();
        ancestors.delete(top.container);
        continue;
      }
      const index = top.index++;
      if (top.keys === null) {
        if (index > 0) bytes += 1;
        next = (top.container as unknown[])[index];
      } else {
        const key = top.keys[index]!;
        const item = (top.container as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        if (top.wrote) bytes += 1;
        top.wrote = true;
        bytes += stringBytes(key) + 1;
        next = item;
      }
      nextDepth = top.depth;
      pending = true;
    }
  } catch {
    return { bytes, depth, stopped: 'unreadable' };
  }
}

/**
 * UTF-8 bytes of `JSON.stringify(value)`: exact when at most `limit`; otherwise some number above
 * `limit` (measuring stops early). Infinity for a value JSON cannot hold (a cycle) or cannot read.
 */
export function jsonSize(value: unknown, limit: number = Number.POSITIVE_INFINITY): number {
  const measured = measureJson(value, { maxBytes: limit });
  return measured.stopped === 'cycle' || measured.stopped === 'unreadable' ? Number.POSITIVE_INFINITY : measured.bytes;
}

/** UTF-8 bytes of `text` (a lone surrogate counts as U+FFFD, 3 bytes, as TextEncoder writes it). */
export function utf8Bytes(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      n += 2; // four bytes for two units
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * UTF-8 bytes of `JSON.stringify(text)`: quotes, escapes (`\n`, `\u0001`, lone surrogates as
 * `\udXXX`) and multi-byte characters. Stops early, returning a lower bound above `budget`, when
 * the text cannot fit in `budget` anyway.
 */
export function stringBytes(text: string, budget: number = Number.POSITIVE_INFINITY): number {
  if (text.length + 2 > budget) return text.length + 2;
  let n = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) n += c === 0x22 || c === 0x5c ? 2 : 1;
      else n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    } else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      if (isLowSurrogate(text.charCodeAt(i + 1))) {
        n += 4;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function primitiveBytes(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value, budget);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length; // JSON.stringify throws; counted as its digits
    default:
      return 4; // null, and undefined / functions / symbols where they become null
  }
}
