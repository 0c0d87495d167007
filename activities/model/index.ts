/**
 * Cairn's model layer: the ModelClient interface, the AI SDK adapter, spec resolution and the
 * scripted model. Worker-side only: never import from workflows/, planner/ or shared/.
 */
export type { GenerateInput, ModelClient } from './model-client.js';
export { ModelConfigError, ModelNetworkError, ModelServerError, ScriptExhaustedError } from './model-errors.js';
export { aiSdkModel, type AiSdkModelOptions } from './ai-sdk-model.js';
export { classifyProviderFailure } from './provider-failure.js';
export { parseRetryAfter } from './retry-after.js';
export { resolveModel, MODEL_SPEC_FORMS, type ModelEnvironment, type ModelProvider, type ResolveModelOptions } from './resolve-model.js';
export { ScriptedModel, type RecordedRequest } from './scripted-model.js';
export { PerRunScriptedModel } from './per-run-scripted-model.js';
export { scriptStep, type FixedStep, type Script, type ScriptContext, type ScriptedCall, type ScriptStep } from './script-steps.js';
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
} from './script-repairs.js';
export { closestValue, editDistance } from './closest-value.js';
