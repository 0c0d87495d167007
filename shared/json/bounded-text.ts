/**
 * Bounded strings: long text is cut with a visible marker instead of silently growing history or
 * a model prompt. Workflow-safe, deterministic.
 */
import { jsonPreview } from './json-preview.js';

/** Default bound for one string shown to the model or stored in a failure. */
export const MAX_TEXT_LENGTH = 2_000;

/**
 * `text` if it has at most `max` UTF-16 units; otherwise its head and a marker saying how many
 * units were cut. Never splits a surrogate pair.
 */
export function truncateText(text: string, max: number = MAX_TEXT_LENGTH): string {
  if (text.length <= max) return text;
  const head = headOf(text, max);
  return `${head}… [${text.length - head.length} more chars cut]`;
}

/**
 * Like truncateText, but the result, marker included, has at most `max` units: so bounding an
 * already bounded text changes nothing (a check that runs twice gives the same value).
 */
export function boundText(text: string, max: number = MAX_TEXT_LENGTH): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `… [${cut} more chars cut]`;
  const head = headOf(text, Math.max(0, max - marker(text.length).length));
  return `${head}${marker(text.length - head.length)}`;
}

/** The first `max` UTF-16 units of `text`, one fewer if the last would split a surrogate pair. */
function headOf(text: string, max: number): string {
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * A value rendered for a message: strings quoted, long renderings cut. Writes only what is shown
 * (a 5 MB value costs about `max` characters, a deeply nested one no stack) and never throws.
 */
export function renderValue(value: unknown, max = 80): string {
  if (typeof value === 'function') return truncateText(`function ${value.name || '(anonymous)'}`, max);
  if (typeof value === 'bigint') return truncateText(`${value}n`, max);
  if (value === undefined || typeof value === 'symbol') return truncateText(String(value), max);
  const preview = jsonPreview(value, max);
  if (preview === undefined) return '[a value that cannot be shown]'; // cycles, BigInt deep inside, throwing getters
  if (preview.complete) return truncateText(preview.text, max);
  return `${headOf(preview.text, max)}… [more chars cut]`;
}
