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
  /**
   * The run was begun by an earlier (killed) evaluation: its place in the recording is read from
   * its history. A run this process started and served from its first activity keeps it here.
   */
  fromHistory = false;
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

  /** The recorded result for this exact call (repeats of one call come back in recorded order, the last one again after). */
  recorded(name: string, args: JsonValue): RecordedToolRun | undefined {
    const runs = this.#byKey.get(`${name}#${argsHash(args)}`);
    const used = this.occurrence(name, args);
    return runs?.[Math.min(used, runs.length - 1)];
  }

  /** How many times this object was asked for this exact call before (when the run's history cannot say). */
  occurrence(name: string, args: JsonValue): number {
    const key = `${name}#${argsHash(args)}`;
    const used = this.#used.get(key) ?? 0;
    this.#used.set(key, used + 1);
    return used;
  }

  /**
   * How the call is answered, the `occurrence`-th (from 0) of this exact call in its run: a pure
   * function of the recording, the mode and the tools, so that the report derives what was served
   * from the run's history alone (the same for a run served by a killed evaluation and resumed).
   */
  serve(
    name: string,
    args: JsonValue,
    occurrence: number,
  ): { readonly served: Served; readonly run?: RecordedToolRun } {
    // Workspace tools act only inside the run's sandbox (docs/workspaces.md): in `live` mode every one
    // runs, so the lane's workspace is the chain of its own calls, never a recorded result's snapshot.
    if (this.mode === 'live' && this.tools.get(name)?.workspace === true)
      return { served: { how: 'live', tool: name } };
    const runs = this.#byKey.get(`${name}#${argsHash(args)}`);
    if (runs) return { served: { how: 'recorded', tool: name }, run: runs[Math.min(occurrence, runs.length - 1)] };
    if (this.mayRunLive(name)) return { served: { how: 'live', tool: name } };
    const nearest = this.mode === 'strict' ? undefined : this.nearest(name, args);
    if (nearest) return { served: { how: 'nearest', tool: name, mismatch: nearest.mismatch }, run: nearest.run };
    const why =
      this.tools.get(name)?.sideEffects === 'none' || !this.tools.has(name)
        ? `The recording has no call of ${name} with these arguments (tools: ${this.mode}).`
        : `The recording has no call of ${name} with these arguments, and ${name} has side effects: an evaluation never runs it.`;
    return { served: { how: 'refused', tool: name, why } };
  }

  /** What each tool call of the run (in history order) was served, derived as `serve` decided it. */
  servedIn(toolRuns: readonly { readonly name: string; readonly args: JsonValue }[]): Served[] {
    const seen = new Map<string, number>();
    return toolRuns.map(({ name, args }) => {
      const key = `${name}#${argsHash(args)}`;
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      return this.serve(name, args, occurrence).served;
    });
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

  /** A read-only tool or a workspace tool may run live in `live` mode; a tool with side effects elsewhere never runs. */
  mayRunLive(name: string): boolean {
    const tool = this.tools.get(name);
    return this.mode === 'live' && (tool?.sideEffects === 'none' || tool?.workspace === true);
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
        child.fromHistory = run.fromHistory;
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
