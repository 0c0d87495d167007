/** Small helpers to summarise and print bench figures. Node-only. */

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `1,234` or `12.3`: integers grouped, small fractions with `digits` decimals. */
export function figure(value: number, digits = 1): string {
  return Number.isInteger(value) || Math.abs(value) >= 100
    ? Math.round(value).toLocaleString('en-US')
    : value.toFixed(digits);
}

/** Rows as aligned columns: text left, numbers right; a header row first. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((row) => (row[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.every((row) => /^[-\d.,×%]*$/.test(row[c] ?? '')));
  const line = (row: readonly string[]) =>
    row
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return all.map(line).join('\n');
}
