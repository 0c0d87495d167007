/**
 * Canonical JSON: one text per value, whatever the key order it was built with. Object keys are
 * sorted (by UTF-16 code units, like `Array.prototype.sort`) at every depth; arrays keep their
 * order. The basis of `argsHash`, so `{a, b}` and `{b, a}` count as the same call.
 * Workflow-safe, deterministic.
 */
import type { JsonValue } from './json.js';

/** The canonical JSON text of `value`. Keys whose value is undefined are skipped, as JSON does. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}
