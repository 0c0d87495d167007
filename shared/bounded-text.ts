/**
 * Bounded strings: long text is cut with a visible marker instead of silently growing history or
 * a model prompt. Workflow-safe, deterministic.
 */

/** Default bound for one string shown to the model or stored in a failure. */
export const MAX_TEXT_LENGTH = 2_000;

/**
 * `text` if it has at most `max` UTF-16 units; otherwise its head and a marker saying how many
 * units were cut. Never splits a surrogate pair.
 */
export function truncateText(text: string, max: number = MAX_TEXT_LENGTH): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [${text.length - end} more chars cut]`;
}

/** A value rendered for a message: strings quoted, long renderings cut. Never throws. */
export function renderValue(value: unknown, max = 80): string {
  let text: string;
  try {
    if (typeof value === 'function') text = `function ${value.name || '(anonymous)'}`;
    else if (typeof value === 'bigint') text = `${value}n`;
    else text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '[a value that cannot be shown]'; // cycles, BigInt deep inside, throwing getters
  }
  return truncateText(text, max);
}
