/**
 * A field of a tool's input in a person's words, for questions to the end user: its `.describe(...)`
 * text, else its name spelled out (`orderId` → "order ID"). Never the tool's name: the person asked
 * does not know the tool. Workflow-safe, deterministic.
 */
import { z } from 'zod';
import { truncateText } from '../json/bounded-text.js';

/** A label is part of a question a person reads: a long description is cut. */
const MAX_LABEL_CHARS = 200;

/**
 * The label of the field at dotted `path` of `schema`, to stand mid-sentence: its description
 * (first letter lowered unless it starts an acronym, final stop dropped), else "the " and its
 * humanized name.
 */
export function fieldLabel(schema: unknown, path: string): string {
  const keys = path.split('.');
  const described = describedAt(schema, keys)?.replace(/[.\s]+$/, '');
  if (described) {
    const lowered = /^[A-Z][a-z]/.test(described) ? described[0]!.toLowerCase() + described.slice(1) : described;
    return truncateText(lowered, MAX_LABEL_CHARS);
  }
  const words = keys.filter((key) => !/^\d+$/.test(key)).map(humanize);
  return truncateText(`the ${words.join(' ') || 'missing information'}`, MAX_LABEL_CHARS);
}

/** `orderId`, `order_id`, `order-id` → "order ID". */
export function humanize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((word) => word !== '')
    .map((word) => {
      const lower = word.toLowerCase();
      return ACRONYMS.has(lower) ? lower.toUpperCase() : lower;
    })
    .join(' ');
}

const ACRONYMS = new Set(['id', 'ids', 'url', 'uri', 'uuid', 'api', 'sku', 'ip', 'iban', 'vat']);

/** The description nearest the field along `keys` (the field's own wrappers first); undefined when none. */
function describedAt(schema: unknown, keys: readonly string[]): string | undefined {
  let at: unknown = schema;
  for (const key of keys) {
    at = child(unwrap(at).inner, key);
    if (at === undefined) return undefined;
  }
  return unwrap(at).description;
}

interface Def {
  readonly type?: string;
  readonly shape?: Record<string, unknown>;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly element?: unknown;
}

/** Through optional, default, pipe… to the schema that holds fields; the first description on the way. */
function unwrap(schema: unknown): { inner: unknown; description?: string } {
  let at = schema;
  let description: string | undefined;
  for (let depth = 0; depth < 20; depth++) {
    description ??= descriptionOf(at);
    const def = defOf(at);
    const next = def?.innerType ?? (def?.type === 'pipe' ? def.in : undefined);
    if (next === undefined) break;
    at = next;
  }
  return { inner: at, ...(description !== undefined && { description }) };
}

function child(schema: unknown, key: string): unknown {
  const def = defOf(schema);
  if (def?.type === 'object' && def.shape && Object.hasOwn(def.shape, key)) return def.shape[key];
  if (def?.type === 'array' && /^\d+$/.test(key)) return def.element;
  return undefined;
}

function defOf(schema: unknown): Def | undefined {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return undefined;
  return (schema as { _zod: { def?: Def } })._zod.def;
}

function descriptionOf(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return undefined;
  const text = z.globalRegistry.get(schema as z.ZodType)?.description;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}
