/**
 * The run's step log (`RunState.steps`): an entry for each recorded plan that adds something (a
 * reply, results, notes, messages delivered, or a new step), for people watching: the CLI, the
 * UI's details, the stream's decisions. Bounded and clipped: it travels with every continue-as-new
 * and every state snapshot. Workflow code (sandbox), deterministic.
 */
import type { Plan, PlanStep } from '../planner/index.js';
import type { StepLogEntry } from './contract/run-state.js';
import { describeStep } from './run-details.js';

/** Entries kept (the newest). */
const MAX_ENTRIES = 50;
/** Characters of an entry's detail kept. */
const MAX_DETAIL_CHARS = 300;

export class StepLog {
  /** Oldest first; the same array across the run, so snapshots and the continue-as-new read it as it is. */
  readonly entries: StepLogEntry[];
  #seq: number;
  #lastStep: PlanStep | undefined;

  constructor(carried: readonly StepLogEntry[] = []) {
    this.entries = [...carried];
    this.#seq = carried.at(-1)?.seq ?? 0;
  }

  /** Logs `plan`, recorded when the transcript was `at` messages long: its entry, or undefined when it adds nothing. */
  log(plan: Plan, at: number): StepLogEntry | undefined {
    const adds =
      plan.reply || plan.record.length > 0 || plan.notes.length > 0 || plan.said || plan.step !== this.#lastStep;
    this.#lastStep = plan.step;
    if (!adds) return undefined;
    const { action, detail } = plan.said
      ? { action: 'message' as const, detail: plan.said.join(' | ') }
      : describeStep(plan.step, plan.state);
    const entry: StepLogEntry = {
      seq: ++this.#seq,
      turn: plan.state.turn,
      at,
      action,
      detail: detail.slice(0, MAX_DETAIL_CHARS),
    };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.shift();
    return entry;
  }
}
