/**
 * Field paths as one string: `items.0.sku`. Used for argument issues, output schema violations and
 * non-JSON values alike, so the model sees one notation everywhere. Workflow-safe, deterministic.
 */

/** `['items', 0, 'sku']` → `items.0.sku`; the empty path → `''`. Symbols show their description. */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path.map((key) => (typeof key === 'symbol' ? (key.description ?? 'symbol') : String(key))).join('.');
}
