/**
 * How long a rate-limited provider asks us to wait, read from its response headers.
 * Worker-side; pure given `now`.
 */

/** Response headers as the AI SDK reports them (names usually lower-case). */
export type ResponseHeaders = Readonly<Record<string, string | undefined>>;

/**
 * The wait in milliseconds that the headers ask for, or `undefined` when they name none.
 * Reads `retry-after-ms` (OpenAI, milliseconds) first, then `retry-after` as delta-seconds or an
 * HTTP-date (RFC 9110 §10.2.3). A date in the past means "now" (0).
 */
export function parseRetryAfter(headers: ResponseHeaders | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = parseNonNegative(header(headers, 'retry-after-ms'));
  if (milliseconds !== undefined) return Math.ceil(milliseconds);
  const value = header(headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = parseNonNegative(value);
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  // HTTP-dates start with a day name; Date.parse alone would read "-3" as a year.
  const date = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value !== undefined) return value.trim();
  }
  return undefined;
}

function parseNonNegative(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) return undefined;
  return Number(value);
}
