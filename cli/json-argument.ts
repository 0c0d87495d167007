/** JSON given on the command line: strict for `review edit/respond`, lenient for `answer`. Node-only. */
import type { JsonObject, JsonValue } from '../shared/json.js';
import { UsageError } from './errors.js';

/** Parses `text` as JSON or throws a UsageError naming what it was for. */
export function parseJsonArgument(text: string, what: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new UsageError(`${what}: not valid JSON (${(error as Error).message}): ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`);
  }
}

/** A JSON object when `text` is one (`{"window":"morning"}`), else the text itself. */
export function objectOrText(text: string): JsonObject | string {
  if (!text.trimStart().startsWith('{')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : text;
  } catch {
    return text;
  }
}
