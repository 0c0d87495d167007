/**
 * PerRunScriptedModel: one script served to any number of runs, each run at its own place in the
 * script, read from the run's transcript (testing/script-position.ts). So a run that another
 * worker, a restarted one or a new build picks up goes on at the right step. This is what a
 * long-lived worker registers for `scripted:<name>`; tests that hold a ScriptedModel instance
 * register that instead. Worker-side only. Runs are told apart by `GenerateInput.runKey`, which
 * continue-as-new keeps.
 */
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { ModelConfigError } from '../activities/model/model-errors.js';
import { isReply, repliesIn, stepAfterReplies } from './script-position.js';
import type { Script } from './script-steps.js';
import { ScriptedModel } from './scripted-model.js';

/** How many runs a PerRunScriptedModel remembers unless told otherwise. */
export const DEFAULT_MAX_RUNS = 1000;

interface Place {
  readonly model: ScriptedModel;
  /** The replies (assistant messages) the run should hold once it recorded every step served so far. */
  replies: number;
}

/**
 * A ModelClient that answers each run from its own copy of a script. A run's place is the step
 * after its transcript's last reply, so any process serves it the same. This worker also remembers,
 * for the `maxRuns` most recently active runs, the steps that leave no reply (a rate limit, an
 * empty answer), so that the next call goes past them; a run it does not remember, or whose
 * transcript disagrees, is served from its transcript (such a step may then come again).
 */
export class PerRunScriptedModel implements ModelClient {
  // A Map iterates in insertion order and every call re-inserts its run: the first key is the
  // least recently active run.
  readonly #runs = new Map<string, Place>();

  constructor(
    /** Named in errors. */
    readonly name: string,
    /** The script, or a function that makes one for a run (called again when another process picks the run up). */
    readonly script: Script | ((runKey: string) => Script),
    readonly maxRuns: number = DEFAULT_MAX_RUNS,
  ) {}

  /** The scripted model serving `runKey`, if that run is remembered. */
  run(runKey: string): ScriptedModel | undefined {
    return this.#runs.get(runKey)?.model;
  }

  /** How many runs are remembered. */
  get size(): number {
    return this.#runs.size;
  }

  /** Answers with the run's next step. Throws `ModelConfigError` without `input.runKey`. */
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    if (!input.runKey)
      throw new ModelConfigError(
        `Scripted model "${this.name}" serves one script per run, and this call names no run (GenerateInput.runKey).`,
      );
    const place = this.#placeOf(input.runKey, repliesIn(input.messages));
    const outcome = await place.model.generate(input);
    if (isReply(outcome)) place.replies++;
    return outcome;
  }

  #placeOf(runKey: string, replies: number): Place {
    let place = this.#runs.get(runKey);
    this.#runs.delete(runKey);
    // Remembered and in step with the transcript: go on (past steps that left no reply). Otherwise
    // another process served the run, or a reply of ours was lost: the transcript says where it stands.
    if (place?.replies !== replies) {
      const script = typeof this.script === 'function' ? this.script(runKey) : this.script;
      place = {
        model: new ScriptedModel(this.name, script, { record: false, startAt: stepAfterReplies(script, replies) }),
        replies,
      };
    }
    this.#runs.set(runKey, place);
    if (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
    return place;
  }
}
