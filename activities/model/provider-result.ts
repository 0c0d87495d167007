/**
 * A provider's generate result (LanguageModelV4) as Cairn's ModelResponse.
 * Worker-side only; pure and deterministic.
 */
import type { LanguageModelV4FinishReason, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { ModelResponse, RawToolCall } from '../../shared/model/model-response.js';
import { withThinking } from '../../shared/model/think-block.js';

/**
 * Text parts are joined in order. Reasoning parts are kept, wrapped as one leading
 * `<think>…</think>` block: that is the form open models emit inline, and the one the workflow's
 * response check (seed 004) strips to spot a think-only, degenerate answer. Tool-call inputs stay
 * the provider's raw JSON text, even when malformed. Provider-executed tool calls, files, sources
 * and custom parts are ignored: Cairn neither runs nor shows them.
 */
export function fromProviderResult(result: LanguageModelV4GenerateResult): ModelResponse {
  const reasoning: string[] = [];
  const text: string[] = [];
  const toolCalls: RawToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text.push(part.text);
    else if (part.type === 'reasoning' && part.text.trim()) reasoning.push(part.text);
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
    }
  }
  const interrupted = result.finishReason.unified === 'interrupted';
  const usage = {
    ...(result.usage.inputTokens.total !== undefined && { inputTokens: result.usage.inputTokens.total }),
    ...(result.usage.outputTokens.total !== undefined && { outputTokens: result.usage.outputTokens.total }),
  };
  return {
    text: withThinking(reasoning, text.join('')),
    toolCalls,
    finishReason: toFinishReason(result.finishReason),
    ...(interrupted && { interrupted }),
    ...(Object.keys(usage).length > 0 && { usage }),
  };
}

function toFinishReason(reason: LanguageModelV4FinishReason): ModelResponse['finishReason'] {
  switch (reason.unified) {
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'stop':
    case 'length':
    case 'error':
    case 'other':
      return reason.unified;
    case 'interrupted':
      return 'other';
  }
}
