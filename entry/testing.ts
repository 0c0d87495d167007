/**
 * `cairn-agents/testing`: scripted models (deterministic stand-ins for a language model, with
 * steps that react to Cairn's hints the way a model would) and `startTestEnvironment`, which runs
 * your agents on a real Temporal dev server inside your tests.
 *
 * Who imports it: your tests, and demos. Node-only; never production code or workflow code.
 */
export {
  startTestEnvironment,
  type TestEnvironment,
  type TestEnvironmentOptions,
} from '../testing/test-environment.js';
export { prepareTemporalCli } from '../testing/prepare-temporal-cli.js';
export { ScriptedModel, type RecordedRequest } from '../testing/scripted-model.js';
export { PerRunScriptedModel } from '../testing/per-run-scripted-model.js';
export { ScriptExhaustedError } from '../testing/script-exhausted-error.js';
export { MemoryRunStore } from '../testing/memory-run-store.js';
export {
  scriptStep,
  type FixedStep,
  type InvalidShape,
  type Script,
  type ScriptContext,
  type ScriptedCall,
  type ScriptedFailureCode,
  type ScriptStep,
} from '../testing/script-steps.js';
export {
  fillMissingFields,
  fixEnumValues,
  followNextInput,
  lastFailedCalls,
  lastToolMessages,
  repairInput,
  repairLastCalls,
  type FailedCall,
  type HintView,
} from '../testing/script-repairs.js';
