/**
 * The tables bench/workflow-task-profile.ts prints: workflow tasks by kind, Cairn beside the plain
 * loop, and a thread's CPU profile summary. Node-only.
 */
import type { ProfileSummary } from './cpu-profile-summary.js';
import { figure, median, table } from './report.js';
import { TASK_KINDS, type WorkflowTask } from './task-kinds.js';

export type Loop = 'cairn' | 'plain';
export const LOOPS: readonly Loop[] = ['cairn', 'plain'];
export const LABEL: Record<Loop, string> = { cairn: 'Cairn agentRun', plain: 'plain loop' };

/** One measured run: its loop, its wall time, and the workflow tasks of its whole chain. */
export interface RunRecord {
  readonly loop: Loop;
  readonly ms: number;
  readonly tasks: readonly WorkflowTask[];
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

export function kindTable(records: readonly RunRecord[]): string {
  const of = (loop: Loop) => records.filter((r) => r.loop === loop);
  const kinds = [...TASK_KINDS, ...new Set(records.flatMap((r) => r.tasks.map((t) => t.kind)))].filter(
    (k, i, all) => all.indexOf(k) === i,
  );
  const rows: string[][] = [];
  const row = (label: string, pick: (t: WorkflowTask) => boolean) => {
    const tasks = LOOPS.map((loop) => of(loop).flatMap((r) => r.tasks.filter(pick)));
    if (tasks.every((t) => t.length === 0)) return;
    const ms = tasks.map((t) => t.map((x) => x.ms));
    const medians = ms.map((m) => (m.length ? median(m) : Number.NaN));
    const cell = (n: number) => (Number.isNaN(n) ? '–' : figure(n));
    rows.push([
      label,
      ...LOOPS.map((loop, l) => figure(tasks[l]!.length / Math.max(1, of(loop).length), 2)),
      cell(medians[0]!),
      cell(quantile(ms[0]!, 0.9)),
      cell(medians[1]!),
      cell(quantile(ms[1]!, 0.9)),
      Number.isNaN(medians[0]! / medians[1]!) ? '–' : `${(medians[0]! / medians[1]!).toFixed(2)}×`,
      ...tasks.map((t) => (t.length ? figure(median(t.map((x) => x.commandBytes)), 0) : '–')),
      ...tasks.map((t) => (t.length ? figure(median(t.map((x) => x.waitMs))) : '–')),
    ]);
  };
  for (const kind of kinds) row(kind, (t) => t.kind === kind);
  row('all tasks', () => true);
  const perRun = (loop: Loop, value: (r: RunRecord) => number) => median(of(loop).map(value));
  const header = [
    'task kind',
    'tasks/run C',
    'tasks/run P',
    'Cairn med ms',
    'Cairn p90',
    'plain med ms',
    'plain p90',
    'C/P',
    'cmd B C',
    'cmd B P',
    'wait ms C',
    'wait ms P',
  ];
  const sum = (r: RunRecord) => r.tasks.reduce((s, t) => s + t.ms, 0);
  // What each kind's commands wrote, in the first measured run of each loop (the shape is fixed).
  const commands = LOOPS.map((loop) => {
    const kinds = new Map<string, string[]>();
    for (const t of of(loop)[0]?.tasks ?? []) {
      const counted = Object.entries(
        t.commands.reduce<Record<string, number>>((n, c) => ((n[c] = (n[c] ?? 0) + 1), n), {}),
      ).map(([c, n]) => (n > 1 ? `${c}×${n}` : c));
      kinds.set(t.kind, [...(kinds.get(t.kind) ?? []), counted.join(' + ') || 'nothing']);
    }
    return `${LABEL[loop]}: ${[...kinds.entries()].map(([kind, list]) => `${kind} → ${list.join(' | ')}`).join('; ')}`;
  });
  return [
    table(header, rows),
    '',
    'Commands by kind (events written after WorkflowTaskCompleted, first measured run):',
    ...commands.map((line) => `  ${line}`),
    '',
    `Per run (median): workflow-task ms summed ${figure(perRun('cairn', sum))} Cairn / ${figure(perRun('plain', sum))} plain (${(perRun('cairn', sum) / perRun('plain', sum)).toFixed(2)}×); ` +
      `wall ms start to result ${figure(
        perRun('cairn', (r) => r.ms),
        0,
      )} / ${figure(
        perRun('plain', (r) => r.ms),
        0,
      )}; ` +
      `history tasks with 2+ tool results: ${LOOPS.map((loop) => of(loop).flatMap((r) => r.tasks.filter((t) => t.kind === 'tool results' && t.results > 1)).length).join(' / ')} of ${LOOPS.map((loop) => of(loop).flatMap((r) => r.tasks.filter((t) => t.kind === 'tool results')).length).join(' / ')}.`,
  ].join('\n');
}

export function profileTable(thread: string, summaries: Record<Loop, ProfileSummary>, runs: number): string {
  const perRun = (ms: number) => figure(ms / runs, 2);
  const plainSelf = new Map(summaries.plain.top.map((t) => [`${t.name}\u0000${t.where}`, t.ms]));
  const top = summaries.cairn.top.slice(0, 15).map((t) => {
    const plain = plainSelf.get(`${t.name}\u0000${t.where}`) ?? 0;
    return [
      t.name.slice(0, 48),
      t.where.slice(0, 70),
      perRun(t.ms),
      `${((100 * t.ms) / summaries.cairn.busyMs).toFixed(1)}%`,
      perRun(plain),
    ];
  });
  const probes = summaries.cairn.probes.map((p, i) => [
    p.label,
    perRun(p.ms),
    `${((100 * p.ms) / summaries.cairn.busyMs).toFixed(1)}%`,
    perRun(summaries.plain.probes[i]!.ms),
    `${((100 * summaries.plain.probes[i]!.ms) / summaries.plain.busyMs).toFixed(1)}%`,
  ]);
  return [
    `${thread}: busy ${perRun(summaries.cairn.busyMs)} ms/run Cairn, ${perRun(summaries.plain.busyMs)} ms/run plain (of ${perRun(summaries.cairn.windowMs)} / ${perRun(summaries.plain.windowMs)} ms/run wall).`,
    table(['top self time, Cairn windows', 'where', 'C ms/run', 'C % busy', 'plain ms/run'], top),
    '',
    table(['inclusive (anywhere on the stack)', 'C ms/run', 'C % busy', 'P ms/run', 'P % busy'], probes),
    ...(summaries.cairn.modules.length > 0
      ? [
          '',
          table(
            ['module evaluation by module, Cairn (top 12)', 'C ms/run', 'C % busy'],
            summaries.cairn.modules
              .slice(0, 12)
              .map((m) => [m.module, perRun(m.ms), `${((100 * m.ms) / summaries.cairn.busyMs).toFixed(1)}%`]),
          ),
        ]
      : []),
  ].join('\n');
}
