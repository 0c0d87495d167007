/**
 * PerRunScriptedModel: one script served to any number of runs, each run with its own
 * ScriptedModel (its own position in the script). This is what a long-lived worker registers for
 * `scripted:<name>`; tests that hold a ScriptedModel instance register that instead.
 * Worker-side only. Runs are told apart by `GenerateInput.runKey`, which continue-as-new keeps.
 */
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { ModelConfigError } from '../activities/model/model-errors.js';
import type { Script } from './script-steps.js';
import { ScriptedModel } from './scripted-model.js';

/** How many runs a PerRunScriptedModel remembers unless told otherwise. */
export const DEFAULT_MAX_RUNS = 1000;

/**
 * A ModelClient that answers each run from its own copy of a script. Positions live in this
 * worker's memory, for the `maxRuns` most recently active runs. A run whose position is gone
 * (another worker served it, this one restarted, or it was forgotten) fails with a clear
 * `ModelConfigError` rather than silently starting its script over mid-conversation.
 */
export class PerRunScriptedModel implements ModelClient {
  // A Map iterates in insertion order and every call re-inserts its run: the first key is the
  // least recently active run.
  readonly #runs = new Map<string, ScriptedModel>();

  constructor(
    /** Named in errors. */
    readonly name: string,
    /** The script, or a function that makes one for a new run. */
    readonly script: Script | ((runKey: string) => Script),
    readonly maxRuns: number = DEFAULT_MAX_RUNS,
  ) {}

  /** The scripted model serving `runKey`, if that run is remembered. */
  run(runKey: string): ScriptedModel | undefined {
    return this.#runs.get(runKey);
  }

  /** How many runs are remembered. */
  get size(): number {
    return this.#runs.size;
  }

  /** Answers with the run's next step. Throws `ModelConfigError` without `input.runKey` or when the run's position is lost. */
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    if (!input.runKey)
      throw new ModelConfigError(
        `Scripted model "${this.name}" serves one script per run, and this call names no run (GenerateInput.runKey).`,
      );
    return this.#modelFor(input.runKey, input.messages).generate(input);
  }

  #modelFor(runKey: string, messages: readonly TranscriptMessage[]): ScriptedModel {
    let model = this.#runs.get(runKey);
    this.#runs.delete(runKey);
    if (!model) {
      if (messages.some((m) => m.role === 'assistant'))
        throw new ModelConfigError(
          `Scripted model "${this.name}" lost its place in run ${runKey} (a restarted worker, another worker, or more than ${this.maxRuns} runs since): ` +
            'a scripted conversation lives in one worker process. Start a new run.',
        );
      model = new ScriptedModel(this.name, typeof this.script === 'function' ? this.script(runKey) : this.script, {
        record: false,
      });
    }
    this.#runs.set(runKey, model);
    if (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
    return model;
  }
}
