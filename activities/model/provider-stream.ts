/**
 * A provider's stream (LanguageModelV4 `doStream`) read to its end: each text and tool-argument
 * piece is handed on as it arrives, and the parts are assembled into the same result `doGenerate`
 * gives, so the turn's recorded response does not depend on whether it streamed. Worker-side only.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { ModelDelta } from '../../shared/live/model-delta.js';

const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * Reads `result.stream` whole. Text parts of one id are joined; a tool call is taken from its
 * final `tool-call` part (the provider's raw input text), its `tool-input-delta`s only preview it.
 * An `error` part is thrown, as `doGenerate` would have thrown it. A stream that ends without a
 * `finish` part is an interrupted answer (`finishReason: other`).
 */
export async function readProviderStream(
  result: LanguageModelV4StreamResult,
  onDelta: (delta: ModelDelta) => void,
): Promise<LanguageModelV4GenerateResult> {
  const content: LanguageModelV4Content[] = [];
  const texts = new Map<string, { type: 'text' | 'reasoning'; text: string }>();
  const toolNames = new Map<string, string>();
  let finishReason: LanguageModelV4FinishReason = { unified: 'interrupted', raw: undefined };
  let usage = NO_USAGE;
  const reader = result.stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start': {
          const entry = { type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' };
          texts.set(part.id, entry);
          content.push(entry as LanguageModelV4Content);
          break;
        }
        case 'text-delta':
        case 'reasoning-delta': {
          const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
          let entry = texts.get(part.id);
          if (!entry || entry.type !== kind) {
            // A provider that skips the start part: the delta opens its block.
            entry = { type: kind, text: '' };
            texts.set(part.id, entry);
            content.push(entry as LanguageModelV4Content);
          }
          entry.text += part.delta;
          if (kind === 'text' && part.delta) onDelta({ kind: 'text', text: part.delta });
          break;
        }
        case 'tool-input-start':
          if (!part.providerExecuted) toolNames.set(part.id, part.toolName);
          break;
        case 'tool-input-delta': {
          const name = toolNames.get(part.id);
          if (name !== undefined && part.delta)
            onDelta({ kind: 'tool-args', toolCallId: part.id, name, args: part.delta });
          break;
        }
        case 'tool-call':
          content.push(part);
          break;
        case 'finish':
          finishReason = part.finishReason;
          usage = part.usage;
          break;
        case 'error':
          throw part.error;
        default:
          break; // metadata, files, sources, raw chunks: not part of Cairn's response
      }
    }
  } finally {
    reader.releaseLock();
  }
  return { content, finishReason, usage, warnings: [] };
}
