/**
 * Keeping what fits: the longest prefix of a JSON value, in document order, whose JSON stays
 * within a byte budget — whole members while they fit, then the first member that does not fit,
 * cut the same way (an array item only when it is the first: a half item after whole ones would
 * mislead), then nothing more. Containers stay closed and valid, and every cut is reported
 * (`orders` keeps 812 of 10,000 items), so the model can be told what is missing and ask for it.
 * Iterative: only one path is ever cut, so the walk is a loop, not a recursion.
 * Workflow-safe, deterministic.
 */
import type { JsonObject, JsonValue } from './json.js';
import { dottedPath } from './dotted-path.js';
import { measureJson, stringBytes } from './json-measure.js';

/** One place where the value was cut. */
export interface JsonCut {
  /** Dotted path of the cut container or string; empty for the top level. */
  readonly path: string;
  /** `items` of an array, `keys` of an object, `characters` of a string. */
  readonly unit: 'items' | 'keys' | 'characters';
  /** Items, keys or characters kept, the one cut further down included. */
  readonly kept: number;
  readonly total: number;
}

export interface FittedJson {
  readonly value: JsonValue;
  /** Outermost first, at most MAX_CUTS_LISTED; empty when the whole value fit. */
  readonly cuts: readonly JsonCut[];
  /** Cuts deeper than those listed. */
  readonly moreCuts: number;
}

/** Cuts listed in full; deeper ones are only counted. */
export const MAX_CUTS_LISTED = 16;

/** A child worth cutting must leave at least this many bytes; smaller remnants are dropped. */
const MIN_PARTIAL_BYTES = 32;

/**
 * `value` if its JSON has at most `maxBytes` UTF-8 bytes; otherwise the prefix that fits and
 * where it was cut. A top-level primitive that cannot fit becomes `null`. Cost: O(depth × maxBytes)
 * at worst (values from `toJsonValue` are at most 256 levels deep), O(maxBytes) for usual shapes.
 */
export function fitJson(value: JsonValue, maxBytes: number): FittedJson {
  if (fits(value, maxBytes)) return { value, cuts: [], moreCuts: 0 };
  const listed: JsonCut[] = [];
  let moreCuts = 0;
  const cuts = {
    push(cut: () => JsonCut): void {
      if (listed.length < MAX_CUTS_LISTED) listed.push(cut());
      else moreCuts++;
    },
  };
  const done = (): FittedJson => ({ value: result, cuts: listed, moreCuts });
  const path: (string | number)[] = [];
  let result: JsonValue = null;
  /** Where the partial value of the current node goes. */
  let place = (fitted: JsonValue): void => {
    result = fitted;
  };
  let node: JsonValue = value;
  let budget = maxBytes;
  for (;;) {
    if (typeof node === 'string') {
      const kept = cutString(node, budget);
      const total = node.length;
      cuts.push(() => ({ path: dottedPath(path), unit: 'characters', kept: kept.length, total }));
      place(kept);
      return done();
    }
    if (node === null || typeof node !== 'object') {
      place(null); // a number or boolean that cannot fit: nothing of it is kept
      return done();
    }
    let used = 2; // the brackets
    let next: { child: JsonValue; key: string | number; room: number; place: (fitted: JsonValue) => void } | undefined;
    let kept = 0;
    let unit: JsonCut['unit'];
    let total: number;
    if (Array.isArray(node)) {
      const out: JsonValue[] = [];
      place(out);
      for (const item of node) {
        const comma = out.length > 0 ? 1 : 0;
        const size = measureJson(item, { maxBytes: budget - used - comma });
        if (size.stopped === undefined) {
          out.push(item);
          used += comma + size.bytes;
          kept++;
          continue;
        }
        // A half item after whole ones would mislead (an order missing its total): the list just ends.
        if (out.length === 0)
          next = { child: item, key: 0, room: budget - used, place: (fitted) => void out.push(fitted) };
        break;
      }
      unit = 'items';
      total = node.length;
    } else {
      const out: JsonObject = {};
      place(out);
      const keys = Object.keys(node);
      for (const key of keys) {
        const item = (node as JsonObject)[key]!;
        const prefix = (kept > 0 ? 1 : 0) + stringBytes(key) + 1;
        const size = measureJson(item, { maxBytes: budget - used - prefix });
        if (size.stopped === undefined) {
          define(out, key, item);
          used += prefix + size.bytes;
          kept++;
          continue;
        }
        next = { child: item, key, room: budget - used - prefix, place: (fitted) => define(out, key, fitted) };
        break;
      }
      unit = 'keys';
      total = keys.length;
    }
    // The member that did not fit is kept, cut, only when a useful part of it fits; the count says so.
    const cutInto = next !== undefined && next.room >= MIN_PARTIAL_BYTES ? next : undefined;
    cuts.push(() => ({ path: dottedPath(path), unit, kept: cutInto ? kept + 1 : kept, total }));
    if (!cutInto) return done();
    place = cutInto.place;
    path.push(cutInto.key);
    node = cutInto.child;
    budget = cutInto.room;
  }
}

/** One line for people and models: "`orders` keeps 812 of 10000 items; `orders.812.notes` keeps …". */
export function describeCuts(fitted: Pick<FittedJson, 'cuts' | 'moreCuts'>, max = 3): string {
  const shown = fitted.cuts
    .slice(0, max)
    .map((cut) => `${cut.path ? `\`${cut.path}\`` : 'the result'} keeps ${cut.kept} of ${cut.total} ${cut.unit}`);
  const more = fitted.cuts.length - shown.length + fitted.moreCuts;
  return more > 0 ? `${shown.join('; ')}; and ${more} deeper cut(s)` : shown.join('; ');
}

function fits(value: JsonValue, maxBytes: number): boolean {
  return measureJson(value, { maxBytes }).stopped === undefined;
}

/** The longest head of `text` whose JSON string fits in `budget` bytes; never splits a surrogate pair. */
function cutString(text: string, budget: number): string {
  // The head of length n, less a high surrogate it would end on: a lone one costs 6 bytes escaped and
  // a whole pair 4, so only heads that keep pairs whole grow in bytes with n, as the binary search needs.
  const head = (n: number): string => {
    const last = text.charCodeAt(n - 1);
    return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n);
  };
  let low = 0;
  let high = Math.min(text.length, Math.max(0, budget));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (stringBytes(head(mid), budget) <= budget) low = mid;
    else high = mid - 1;
  }
  return head(low);
}

/** Sets a key as an own data property, so `__proto__` stays data. */
function define(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
