/**
 * Cairn's model layer: the ModelClient interface, the AI SDK adapter and spec resolution.
 * Worker-side only: never import from workflows/, planner/ or shared/. Scripted models for tests
 * and demos live in testing/.
 */
export type { GenerateInput, ModelClient } from './model-client.js';
export { ModelConfigError, ModelNetworkError, ModelServerError } from './model-errors.js';
export { aiSdkModel, type AiSdkModelOptions } from './ai-sdk-model.js';
export { classifyProviderFailure } from './provider-failure.js';
export { parseRetryAfter } from './retry-after.js';
export {
  resolveModel,
  MODEL_SPEC_FORMS,
  type ModelEnvironment,
  type ModelProvider,
  type ResolveModelOptions,
} from './resolve-model.js';
