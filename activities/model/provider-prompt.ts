/**
 * Cairn's transcript, tools and tool choice in the AI SDK provider format (LanguageModelV4).
 * Worker-side only; pure and deterministic.
 */
import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { ToolSpec } from '../../shared/tools/define-tool.js';
import type { ToolChoice } from '../../shared/model/model-response.js';
import type { TranscriptMessage } from '../../shared/model/transcript.js';
import { visibleText } from '../../shared/model/think-block.js';

/**
 * The transcript as a provider prompt. Tool calls and their results are matched by the provider's
 * own call id when it gave one (`providerCallId ?? toolCallId`); consecutive tool results share one
 * `tool` message. Earlier reasoning is dropped from assistant text: providers do not want it back
 * (some reject it outright).
 */
export function toProviderPrompt(messages: readonly TranscriptMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant': {
        const text = visibleText(message.content);
        const calls = message.toolCalls.map(
          (call): LanguageModelV4ToolCallPart => ({
            type: 'tool-call',
            toolCallId: call.providerCallId ?? call.toolCallId,
            toolName: call.name,
            // Parsed arguments, or the raw text of malformed ones (sent back as a JSON string).
            input: call.args,
          }),
        );
        prompt.push({ role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] });
        break;
      }
      case 'tool': {
        const part: LanguageModelV4ToolResultPart = {
          type: 'tool-result',
          toolCallId: message.providerCallId ?? message.toolCallId,
          toolName: message.name,
          output: { type: 'json', value: message.content },
        };
        const previous = prompt.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else prompt.push({ role: 'tool', content: [part] } satisfies LanguageModelV4Message);
        break;
      }
    }
  }
  return prompt;
}

/** Cairn's tool specs as provider function tools; `args_schema` is already JSON Schema. */
export function toProviderTools(tools: readonly ToolSpec[]): LanguageModelV4FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.args_schema as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

/** Cairn's tool choice in provider form. */
export function toProviderToolChoice(choice: ToolChoice): LanguageModelV4ToolChoice {
  if (choice === 'auto' || choice === 'none') return { type: choice };
  return { type: 'tool', toolName: choice.tool };
}
