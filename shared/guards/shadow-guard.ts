/**
 * Shadow mode for output guards (seed 002: run a guard over real traffic before enforcing it).
 * A guard in `shadow` mode judges every output as usual but only records what it would have
 * refused — which guard, which rule, which field, how often — and lets the result through. The
 * record travels in the ToolResult (`shadow`, bounded), never reaches the model, and is counted
 * per tool, rule and field by `shadowCounts` for a report. Workflow-safe, deterministic.
 */
import type { ToolErrorCode } from '../failures/failure-taxonomy.js';
import type { ToolResult } from '../tools/tool-result.js';
import type { GuardName, ShadowViolation } from './shadow-violation.js';
import { boundText } from '../json/bounded-text.js';
import { MAX_SHADOW_VIOLATIONS } from '../size-limits.js';

/** `enforce` refuses what fails the guard (the default); `shadow` records it and passes it on. */
export type GuardMode = 'enforce' | 'shadow';

/** A tool's guard modes: one for both guards, or one per guard. */
export type GuardModes = GuardMode | { readonly output?: GuardMode; readonly check?: GuardMode };

/** The mode of one guard of a tool (`enforce` unless set). */
export function guardMode(modes: GuardModes | undefined, guard: GuardName): GuardMode {
  if (modes === undefined) return 'enforce';
  if (typeof modes === 'string') return modes;
  return modes[guard] ?? 'enforce';
}

/** Collects violations of one result: aggregated by (guard, code, rule, path), at most MAX_SHADOW_VIOLATIONS kept. */
export class ShadowRecorder {
  readonly #byKey = new Map<string, { violation: Omit<ShadowViolation, 'count'>; count: number }>();
  #dropped = 0;

  /** Records one firing; `path` may hold array indices, which are folded into `*`. */
  record(
    guard: GuardName,
    code: ToolErrorCode,
    rule: string,
    path: readonly PropertyKey[] | string,
    message: string | (() => string),
  ): void {
    const folded = typeof path === 'string' ? path : foldPath(path);
    const key = `${guard}\u0000${code}\u0000${rule}\u0000${folded}`;
    const seen = this.#byKey.get(key);
    if (seen) seen.count++;
    else if (this.#byKey.size < MAX_SHADOW_VIOLATIONS)
      this.#byKey.set(key, {
        violation: {
          guard,
          code,
          rule: boundText(rule, 100),
          path: boundText(folded, 300),
          message: boundText(typeof message === 'string' ? message : message(), 300),
        },
        count: 1,
      });
    else this.#dropped++;
  }

  /** True when nothing was recorded. */
  get empty(): boolean {
    return this.#byKey.size === 0;
  }

  /** The violations; when some kinds did not fit, the last entry counts them (`rule: 'more'`). */
  violations(): ShadowViolation[] {
    const list: ShadowViolation[] = [...this.#byKey.values()].map(({ violation, count }) => ({ ...violation, count }));
    if (this.#dropped > 0)
      list.push({
        guard: list[0]!.guard,
        code: list[0]!.code,
        rule: 'more',
        path: '',
        count: this.#dropped,
        message: `${this.#dropped} more violation(s) of other rules or fields`,
      });
    return list;
  }
}

/** `['orders', 3, 'status']` → `orders.*.status`. */
function foldPath(path: readonly PropertyKey[]): string {
  return path
    .map((key) =>
      typeof key === 'number' || (typeof key === 'string' && /^\d+$/.test(key))
        ? '*'
        : typeof key === 'symbol'
          ? (key.description ?? 'symbol')
          : key,
    )
    .join('.');
}

/** One row of a shadow report: how often a tool's guard fired for a rule and field, over many results. */
export interface ShadowCount {
  readonly tool: string;
  readonly guard: GuardName;
  readonly code: ToolErrorCode;
  readonly rule: string;
  readonly path: string;
  /** Firings over all results. */
  readonly count: number;
  /** Results (tool calls) in which it fired. */
  readonly calls: number;
  /** The first message seen. */
  readonly example: string;
}

/** Violations over many results, per tool, guard, code, rule and path; most frequent first. */
export function shadowCounts(results: Iterable<Pick<ToolResult, 'name' | 'shadow'>>): ShadowCount[] {
  const rows = new Map<string, { row: Omit<ShadowCount, 'count' | 'calls'>; count: number; calls: number }>();
  for (const result of results) {
    for (const v of result.shadow ?? []) {
      const key = `${result.name}\u0000${v.guard}\u0000${v.code}\u0000${v.rule}\u0000${v.path}`;
      const row = rows.get(key) ?? {
        row: { tool: result.name, guard: v.guard, code: v.code, rule: v.rule, path: v.path, example: v.message },
        count: 0,
        calls: 0,
      };
      row.count += v.count;
      row.calls += 1;
      rows.set(key, row);
    }
  }
  return [...rows.values()]
    .map(({ row, count, calls }) => ({ ...row, count, calls }))
    .sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool));
}
