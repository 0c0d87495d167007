/**
 * The start of a value's JSON text, written only as far as it is shown: rendering 80 characters
 * of a 5 MB value costs 80 characters, not 5 MB, and a value a million levels deep is no stack
 * overflow (JSON.stringify itself gives up near 5,000 levels). Workflow-safe, deterministic.
 */

/** What `jsonPreview` wrote. */
export interface JsonPreview {
  /** JSON.stringify's text when `complete`; otherwise its first `maxChars` characters or a few more. */
  readonly text: string;
  readonly complete: boolean;
}

interface Frame {
  readonly container: object;
  /** Own enumerable keys for an object; null for an array. */
  readonly keys: readonly string[] | null;
  readonly length: number;
  index: number;
  wrote: boolean;
}

/**
 * `JSON.stringify(value)` cut after about `maxChars` characters. The same text as JSON.stringify
 * when complete: `toJSON` is called once, boxed primitives are unwrapped, object keys holding
 * undefined, functions or symbols are skipped and such array items become `null`. Undefined where
 * JSON.stringify gives nothing (a top-level function or undefined) or throws before the cut (a
 * cycle, a BigInt, a throwing getter or toJSON). Never throws.
 */
export function jsonPreview(value: unknown, maxChars: number): JsonPreview | undefined {
  const out: string[] = [];
  let length = 0;
  const emit = (text: string): void => {
    out.push(text);
    length += text.length;
  };
  const frames: Frame[] = [];
  const ancestors = new Set<object>();
  const cut = (): JsonPreview => ({ text: out.join(''), complete: false });
  try {
    let next: unknown = jsonValueOf(value, '');
    if (next === undefined || typeof next === 'function' || typeof next === 'symbol') return undefined;
    let pending = true;
    for (;;) {
      if (pending) {
        pending = false;
        if (typeof next === 'object' && next !== null) {
          if (ancestors.has(next)) return undefined; // JSON.stringify: "Converting circular structure"
          ancestors.add(next);
          const keys = Array.isArray(next) ? null : Object.keys(next);
          frames.push({
            container: next,
            keys,
            length: keys === null ? (next as unknown[]).length : keys.length,
            index: 0,
            wrote: false,
          });
          emit(keys === null ? '[' : '{');
        } else if (typeof next === 'string') {
          const room = maxChars - length;
          // Escaping a prefix gives a prefix of the escaped text, up to the cut: enough to show.
          if (next.length > room + 2) {
            emit(JSON.stringify(next.slice(0, room + 2)).slice(0, -1));
            return cut();
          }
          emit(JSON.stringify(next));
        } else if (typeof next === 'bigint')
          return undefined; // JSON.stringify throws
        else emit(primitiveText(next));
        if (length > maxChars) return cut();
      }
      const top = frames[frames.length - 1];
      if (top === undefined) return { text: out.join(''), complete: true };
      if (top.index >= top.length) {
        frames.pop();
        ancestors.delete(top.container);
        emit(top.keys === null ? ']' : '}');
        if (length > maxChars) return cut();
        continue;
      }
      const index = top.index++;
      if (top.keys === null) {
        if (index > 0) emit(',');
        next = jsonValueOf((top.container as unknown[])[index], String(index));
        if (next === undefined || typeof next === 'function' || typeof next === 'symbol') next = null;
      } else {
        const key = top.keys[index]!;
        const item = jsonValueOf((top.container as Record<string, unknown>)[key], key);
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        if (top.wrote) emit(',');
        top.wrote = true;
        emit(`${JSON.stringify(key)}:`);
        next = item;
      }
      pending = true;
    }
  } catch {
    return length > maxChars ? cut() : undefined;
  }
}

/** What JSON.stringify writes for `value` under `key`: toJSON applied, boxed primitives unwrapped. */
function jsonValueOf(value: unknown, key: string): unknown {
  let current = value;
  if (
    typeof current === 'object' &&
    current !== null &&
    typeof (current as { toJSON?: unknown }).toJSON === 'function'
  ) {
    current = (current as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (current instanceof Number || current instanceof String || current instanceof Boolean) return current.valueOf();
  return current;
}

function primitiveText(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'null';
}
