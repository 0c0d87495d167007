/**
 * The `<think>…</think>` convention, in one place: reasoning travels inside the response text as
 * think blocks (how open models emit it inline, and how the provider adapter writes a provider's
 * reasoning parts). A block is matched anywhere, in any letter case, closed or running to the end
 * of the text (a cut stream). Workflow-safe, deterministic.
 */

const THINK_BLOCK = /<think>[\s\S]*?(?:<\/think>|$)/gi;

/** The text a person would see: every think block removed, trimmed. */
export function visibleText(text: string): string {
  return text.replace(THINK_BLOCK, '').trim();
}

/** `text` with `reasoning` in front as one think block (none when there is no reasoning). */
export function withThinking(reasoning: readonly string[], text: string): string {
  const thought = reasoning.filter((part) => part.trim() !== '');
  return thought.length > 0 ? `<think>${thought.join('\n')}</think>${text}` : text;
}

/** The reasoning of `text`: the contents of its think blocks, joined by a newline, trimmed ('' when none). */
export function thinkingOf(text: string): string {
  const blocks = text.match(THINK_BLOCK) ?? [];
  return blocks
    .map((block) =>
      block
        .replace(/^<think>/i, '')
        .replace(/<\/think>$/i, '')
        .trim(),
    )
    .filter((thought) => thought !== '')
    .join('\n');
}
