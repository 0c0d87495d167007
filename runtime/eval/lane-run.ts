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
    /** The lane's agent's tools, by name: whether a tool may run live. */
    readonly tools: ReadonlyMap<string, AnyTool>,
  ) {
    for (const run of recording?.toolRuns ?? []) {
      const key = `${run.name}#${run.argsHash}`;
      this.#byKey.set(key, [...(this.#byKey.get(key) ?? []), run]);
    }
  }

  /** The recorded result for this exact call (repeats of one call come back in recorded order, the last one again after). */
  recorded(name: string, args: JsonValue): RecordedToolRun | undefined {
    const key = `${name}#${argsHash(args)}`;
    const runs = this.#byKey.get(key);
    if (!runs) return undefined;
    const used = this.#used.get(key) ?? 0;
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

  /** The next recorded model outcome (baseline lane), or undefined when the recording has no more. */
  nextModelTurn(): JsonValue | undefined {
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
