/**
 * A run's prompt from a frontend's conversation: the user's one message, or, when a thread goes
 * on after a finished run, the conversation so far and the new message, so the next run of the
 * thread knows what was said. Works on AG-UI messages and AI SDK UI messages. Node-only.
 */
import { HttpError } from './http-error.js';

export interface ConversationLine {
  readonly role: string;
  readonly text: string;
}

const MAX_PROMPT_CHARS = 40_000;

export function promptOf(lines: readonly ConversationLine[]): string {
  const said = lines.filter((l) => (l.role === 'user' || l.role === 'assistant') && l.text.trim() !== '');
  const last = said.at(-1);
  if (last?.role !== 'user')
    throw new HttpError(422, 'invalid_input', 'The conversation must end with a user message.');
  const prompt =
    said.length === 1
      ? last.text
      : `${said
          .slice(0, -1)
          .map((l) => `${l.role}: ${l.text}`)
          .join('\n')}\n\nThe user now says: ${last.text}`;
  if (prompt.length > MAX_PROMPT_CHARS)
    throw new HttpError(413, 'body_too_large', `The conversation is longer than ${MAX_PROMPT_CHARS} characters.`);
  return prompt;
}

/** The text of a message's content: a string, or text parts (AG-UI `{type:'text',text}`, AI SDK `{type:'text',text}`). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (p): p is { type: 'text'; text: string } =>
        typeof p === 'object' && p !== null && p.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join('');
}
