/**
 * Closest allowed value by edit distance: how a scripted model "fixes" an invalid enum value the
 * way a model reading the hint would (`shipping` → `shipped`). Pure and deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';

/** Levenshtein distance: insertions, deletions and substitutions, each costing 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The allowed value nearest to `value` (case-insensitive); ties go to the earlier one. Only string
 * values compete; when there are none, the first allowed value is returned (`undefined` if empty).
 */
export function closestValue(value: string, allowed: readonly JsonValue[]): JsonValue | undefined {
  const target = value.toLowerCase();
  let best: JsonValue | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    if (typeof candidate !== 'string') continue;
    const distance = editDistance(target, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best ?? allowed[0];
}
