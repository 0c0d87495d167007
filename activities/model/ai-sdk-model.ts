/**
 * A ModelClient over any AI SDK provider model (the LanguageModelV4 spec of `@ai-sdk/provider` 4).
 * Worker-side only. Not deterministic; safe to retry.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import type { GenerateInput, ModelClient } from './model-client.js';
import { classifyProviderFailure } from './provider-failure.js';
import { toProviderPrompt, toProviderToolChoice, toProviderTools } from './provider-prompt.js';
import { fromProviderResult } from './provider-result.js';
import { readProviderStream } from './provider-stream.js';

/** Options for `aiSdkModel`. */
export interface AiSdkModelOptions {
  /** Values (API keys) to mask out of error messages before they reach history or logs. */
  readonly secrets?: readonly string[];
  /** Sampling temperature; the provider's default when absent. */
  readonly temperature?: number;
  /** Cap on output tokens per call; the provider's default when absent. */
  readonly maxOutputTokens?: number;
}

/**
 * Adapts an AI SDK provider model to `ModelClient`.
 *
 * It calls `model.doGenerate` directly, not `generateText`: one request per call, no tool loop
 * and no retries of its own, because the workflow owns the loop and Temporal owns the retries.
 * When the run streams (`input.onDelta`) it calls `model.doStream` instead and assembles the same
 * result from the parts (provider-stream.ts). Failures are classified by `classifyProviderFailure`.
 */
export function aiSdkModel(model: LanguageModelV4, options: AiSdkModelOptions = {}): ModelClient {
  return {
    async generate(input: GenerateInput): Promise<ModelOutcome> {
      try {
        const call = {
          prompt: toProviderPrompt(input.messages),
          // No tools: leave both out, since some providers reject a tool choice without tools.
          ...(input.tools.length > 0 && {
            tools: toProviderTools(input.tools),
            toolChoice: toProviderToolChoice(input.toolChoice),
          }),
          ...(options.temperature !== undefined && { temperature: options.temperature }),
          ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
          ...(input.signal && { abortSignal: input.signal }),
        };
        const result = input.onDelta
          ? await readProviderStream(await model.doStream(call), input.onDelta)
          : await model.doGenerate(call);
        return { status: 'ok', response: fromProviderResult(result) };
      } catch (error) {
        return classifyProviderFailure(error, options.secrets);
      }
    },
  };
}
