/** JSON given on the command line: `review edit/respond` arguments, and answers that start with `{`. Node-only. */
import type { JsonObject, JsonValue } from '../shared/json/json.js';
import { UsageError } from './errors.js';

/** Parses `text` as JSON or throws a UsageError naming what it was for. */
export function parseJsonArgument(text: string, what: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new UsageError(
      `${what}: not valid JSON (${(error as Error).message}): ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`,
    );
  }
}

/**
 * A JSON object when `text` starts with `{` (`{"window":"morning"}`), else the text itself. Text
 * that starts with `{` but is not a JSON object is a UsageError: it was meant as JSON.
 */
export function objectOrText(text: string): JsonObject | string {
  if (!text.trimStart().startsWith('{')) return text;
  const value = parseJsonArgument(text, 'answer');
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`answer: not a JSON object: ${text}`);
  return value;
}
