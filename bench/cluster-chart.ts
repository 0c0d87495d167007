/**
 * bench/cluster.ts's chart: completed runs over time, one line per kind of run, with the moments
 * a worker was killed and a new build deployed marked. A self-contained SVG, no dependencies.
 */

export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  /** Completion times, ms since the start. */
  readonly doneAtMs: readonly number[];
  /** Each completion counts this much (a series of fewer lanes scaled to the others'). Default 1. */
  readonly scale?: number;
}

export interface ChartMark {
  readonly label: string;
  readonly atMs: number;
}

const xmlText = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function completionsChart(title: string, series: readonly ChartSeries[], marks: readonly ChartMark[]): string {
  const [width, height, left, right, top, bottom] = [1000, 420, 70, 250, 40, 50];
  const endMs = Math.max(1, ...series.flatMap((s) => s.doneAtMs), ...marks.map((m) => m.atMs));
  const most = Math.max(1, ...series.map((s) => s.doneAtMs.length * (s.scale ?? 1)));
  const x = (ms: number) => left + (ms / endMs) * (width - left - right);
  const y = (count: number) => height - bottom - (count / most) * (height - top - bottom);
  const line = (s: ChartSeries) => {
    const sorted = [...s.doneAtMs].sort((a, b) => a - b);
    // At most ~600 points: every k-th completion draws the same line.
    const step = Math.max(1, Math.floor(sorted.length / 600));
    const scale = s.scale ?? 1;
    const points: [number, number][] = [
      [0, 0],
      ...sorted
        .map((ms, i) => [ms, (i + 1) * scale] as [number, number])
        .filter((_, i) => i % step === 0 || i === sorted.length - 1),
    ];
    const d = points.map(([ms, count], i) => `${i === 0 ? 'M' : 'L'}${x(ms).toFixed(1)},${y(count).toFixed(1)}`);
    return `<path d="${d.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"/>`;
  };
  const ticks = 5;
  const axis = [
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#333"/>`,
    ...Array.from({ length: ticks + 1 }, (_, i) => {
      const ms = (endMs * i) / ticks;
      const count = Math.round((most * i) / ticks);
      return [
        `<text x="${x(ms).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle">${Math.round(ms / 1000)} s</text>`,
        `<text x="${left - 8}" y="${(y(count) + 4).toFixed(1)}" text-anchor="end">${count}</text>`,
        `<line x1="${left}" y1="${y(count).toFixed(1)}" x2="${width - right}" y2="${y(count).toFixed(1)}" stroke="#eee"/>`,
      ].join('');
    }),
    `<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">time since the first start</text>`,
    `<text x="16" y="${(top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(top + height - bottom) / 2})">runs completed</text>`,
  ];
  const markLines = marks.map(
    (m) =>
      `<line x1="${x(m.atMs).toFixed(1)}" y1="${top}" x2="${x(m.atMs).toFixed(1)}" y2="${height - bottom}" stroke="#999" stroke-dasharray="4 3"/>` +
      `<text x="${(x(m.atMs) + 4).toFixed(1)}" y="${top + 12 + 14 * marks.indexOf(m)}" fill="#555">${xmlText(m.label)}</text>`,
  );
  const legend = series.map(
    (s, i) =>
      `<rect x="${width - right + 15}" y="${top + i * 22}" width="14" height="4" fill="${s.color}"/>` +
      `<text x="${width - right + 35}" y="${top + i * 22 + 6}">${xmlText(s.name)} (${s.doneAtMs.length})</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<title>${xmlText(title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="22" font-size="14">${xmlText(title)}</text>`,
    ...axis,
    ...markLines,
    ...series.map(line),
    ...legend,
    '</svg>',
  ].join('\n');
}
