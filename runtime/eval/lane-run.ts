/**
 * One lane's run of one case, as the evaluation's activities serve it: tool calls answered from
 * the recording (by tool name and argument hash, in recorded order), the nearest recorded call
 * of the tool when the mode allows, a read-only tool run live when the mode allows, and (baseline
 * lane) the recorded model turns in order. It keeps what it served and what it could not, for the
 * case's report. Node-only (the worker's side).
 */
import { canonicalJson } from '../../shared/json/canonical-json.js';
import { argsHash } from '../../shared/identity/hash.js';
import { isJsonObject, type JsonValue } from '../../shared/json/json.js';
import type { EvalLane, ToolMode } from '../../shared/eval/define-eval.js';
import type { RecordedToolRun, Recording } from '../../shared/eval/recording.js';
import type { AnyTool } from '../../shared/tools/define-tool.js';
import type { ScheduledActivity } from './lane-position.js';

/** How one tool call of an evaluated run was answered. */
export type Served =
  | { readonly how: 'recorded'; readonly tool: string }
  | { readonly how: 'nearest'; readonly tool: string; readonly mismatch: string }
  | { readonly how: 'live'; readonly tool: string }
  | { readonly how: 'refused'; readonly tool: string; readonly why: string };

export class LaneRun {
  readonly served: Served[] = [];
  /** Things the harness could not reproduce (a baseline model turn the recording lacks). */
  readonly drift: string[] = [];
  readonly #byKey = new Map<string, RecordedToolRun[]>();
  readonly #used = new Map<string, number>();
  #modelTurn = 0;

  constructor(
    readonly caseId: string,
    readonly lane: EvalLane,
    readonly recording: Recording | undefined,
    readonly mode: ToolMode,
    /** The tools of the lane's agent and the agents it reaches, by name: whether a tool may run live. */
    readonly tools: ReadonlyMap<string, AnyTool>,
    /** The recorded run's workflow id: its agent tools' child runs were recorded under it. */
    readonly recordedId?: string,
  ) {
    for (const run of recording?.toolRuns ?? []) {
      const key = `${run.name}#${run.argsHash}`;
      this.#byKey.set(key, [...(this.#byKey.get(key) ?? []), run]);
    }
  }

  /**
   * The recorded result for this exact call (repeats of one call come back in recorded order, the
   * last one again after). `occurrence`: how many times the run made this call before (from its
   * history, lane-position.ts); without it, how many times this object served it.
   */
  recorded(name: string, args: JsonValue, occurrence?: number): RecordedToolRun | undefined {
    const key = `${name}#${argsHash(args)}`;
    const runs = this.#byKey.get(key);
    if (!runs) return undefined;
    const used = occurrence ?? this.#used.get(key) ?? 0;
    this.#used.set(key, used + 1);
    return runs[Math.min(used, runs.length - 1)];
  }

  /** The recorded call of `name` whose arguments differ in the fewest fields, with those fields. */
  nearest(name: string, args: JsonValue): { readonly run: RecordedToolRun; readonly mismatch: string } | undefined {
    let best: { run: RecordedToolRun; fields: string[] } | undefined;
    for (const run of this.recording?.toolRuns ?? []) {
      if (run.name !== name) continue;
      const fields = differingFields(run.args, args);
      if (!best || fields.length < best.fields.length) best = { run, fields };
    }
    return (
      best && {
        run: best.run,
        mismatch: `served the recorded call with other ${best.fields.join(', ') || 'arguments'}`,
      }
    );
  }

  /** A read-only tool may run live in `live` mode; a tool with side effects never runs. */
  mayRunLive(name: string): boolean {
    return this.mode === 'live' && this.tools.get(name)?.sideEffects === 'none';
  }

  /** The next recorded model outcome (baseline lane), or that of `turn` (from the run's history), or undefined when the recording has no more. */
  nextModelTurn(turn?: number): JsonValue | undefined {
    if (turn !== undefined) this.#modelTurn = turn;
    return this.recording?.modelTurns[this.#modelTurn++]?.outcome;
  }

  get modelTurnsServed(): number {
    return this.#modelTurn;
  }
}

function differingFields(a: JsonValue, b: JsonValue): string[] {
  if (!isJsonObject(a) || !isJsonObject(b)) return canonicalJson(a) === canonicalJson(b) ? [] : ['arguments'];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => canonicalJson(a[key] ?? null) !== canonicalJson(b[key] ?? null))
    .sort();
}

/**
 * The lane runs of an evaluation, by workflow id. A child run of an agent tool (`<parent>/<call>`)
 * is served from the child the recorded parent started at the same call (`<recorded parent>/<call>`),
 * when its history is among the evaluation's; else from nothing (its calls are refused).
 */
export class LaneRegistry {
  readonly #runs = new Map<string, LaneRun>();

  constructor(
    /** Every recorded run the evaluation read, by workflow id (children included). */
    readonly recordings: ReadonlyMap<string, Recording>,
    /** Reads the running activity's place from its run's history (lane-position.ts); without it, from memory. */
    readonly scheduledBefore?: (match: (activity: ScheduledActivity) => boolean) => Promise<number | undefined>,
  ) {}

  set(workflowId: string, run: LaneRun): void {
    this.#runs.set(workflowId, run);
  }

  get(workflowId: string): LaneRun | undefined {
    const known = this.#runs.get(workflowId);
    if (known) return known;
    // Iterative: the nearest registered ancestor, then a child run for each level below it.
    const levels = workflowId.split('/');
    for (let depth = levels.length - 1; depth >= 1; depth--) {
      let run = this.#runs.get(levels.slice(0, depth).join('/'));
      if (!run) continue;
      for (let level = depth; level < levels.length; level++) {
        const id = levels.slice(0, level + 1).join('/');
        const recordedId = run.recordedId === undefined ? undefined : `${run.recordedId}/${levels[level]}`;
        const child: LaneRun = new LaneRun(
          run.caseId,
          run.lane,
          recordedId === undefined ? undefined : this.recordings.get(recordedId),
          run.mode,
          run.tools,
          recordedId,
        );
        this.#runs.set(id, child);
        run = child;
      }
      return run;
    }
    return undefined;
  }

  /** Forgets a lane run and its children. */
  delete(workflowId: string): void {
    for (const id of [...this.#runs.keys()])
      if (id === workflowId || id.startsWith(`${workflowId}/`)) this.#runs.delete(id);
  }
}
