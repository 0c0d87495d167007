/**
 * PerRunScriptedModel: one script served to any number of runs, each run with its own
 * ScriptedModel (its own position in the script). This is what a long-lived worker registers for
 * `scripted:<name>`; tests that hold a ScriptedModel instance register that instead.
 * Worker-side only. Runs are told apart by `GenerateInput.workflowId`, which continue-as-new keeps.
 */
import type { ModelOutcome } from '../../shared/model-response.js';
import type { TranscriptMessage } from '../../shared/transcript.js';
import type { GenerateInput, ModelClient } from './model-client.js';
import { ModelConfigError } from './model-errors.js';
import type { Script } from './script-steps.js';
import { ScriptedModel } from './scripted-model.js';

/** How many runs a PerRunScriptedModel remembers unless told otherwise. */
export const DEFAULT_MAX_RUNS = 1000;

/**
 * A ModelClient that answers each run from its own copy of a script. Memory is bounded: it keeps
 * the `maxRuns` most recently active runs and forgets the least recently active one beyond that
 * (a forgotten run that calls again starts its script over). Entries are kept after the script
 * runs out, so a run that asks for one step too many still gets `ScriptExhaustedError`.
 */
export class PerRunScriptedModel implements ModelClient {
  // A Map iterates in insertion order and every call re-inserts its run: the first key is the
  // least recently active run.
  readonly #runs = new Map<string, ScriptedModel>();

  constructor(
    /** Named in errors. */
    readonly name: string,
    /** The script, or a function that makes one for a new run. */
    readonly script: Script | ((workflowId: string) => Script),
    readonly maxRuns: number = DEFAULT_MAX_RUNS,
  ) {}

  /** The scripted model serving `workflowId`, if that run is remembered. */
  run(workflowId: string): ScriptedModel | undefined {
    return this.#runs.get(workflowId);
  }

  /** How many runs are remembered. */
  get size(): number {
    return this.#runs.size;
  }

  /** Answers with the run's next step. Throws `ModelConfigError` without `input.workflowId`. */
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    if (!input.workflowId) throw new ModelConfigError(`Scripted model "${this.name}" serves one script per run, and this call names no run (GenerateInput.workflowId).`);
    return this.#modelFor(input.workflowId, input.messages).generate(input);
  }

  #modelFor(workflowId: string, messages: readonly TranscriptMessage[]): ScriptedModel {
    let model = this.#runs.get(workflowId);
    this.#runs.delete(workflowId);
    // A finished script asked again by a run that has no model answer yet: a new run reusing
    // the workflow id of a finished one, so it gets a fresh script.
    if (!model || (model.remaining === 0 && !messages.some((m) => m.role === 'assistant')))
      model = new ScriptedModel(this.name, typeof this.script === 'function' ? this.script(workflowId) : this.script, { record: false });
    this.#runs.set(workflowId, model);
    if (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
    return model;
  }
}
