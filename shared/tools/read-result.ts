/**
 * `read_result`: the built-in tool that pages through a tool result too large for history. When
 * a worker offloads an oversize result to its PayloadStore, the model gets what fits and a `ref`;
 * this tool returns the stored JSON text a slice at a time. Add it to an agent's tools when its
 * workers have a store. Workflow-safe to import; `execute` reads the store the worker passes in
 * `context.payloads`.
 */
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { ToolFailure } from '../failures/tool-failure.js';
import { MAX_READ_RESULT_CHARS } from '../size-limits.js';

/** Characters read when the model does not say. */
export const DEFAULT_READ_RESULT_CHARS = 16_384;

export const readResult = defineTool({
  name: 'read_result',
  description:
    'Read more of a tool result that was too large to show whole: pass the `ref` its message gave, ' +
    'an `offset` (characters into its JSON text) and a `length` (at most 65536). Returns that slice of the text and where the next one starts.',
  input: z.object({
    ref: z.string().min(1).max(200),
    offset: z.number().int().min(0).default(0),
    length: z.number().int().min(1).max(MAX_READ_RESULT_CHARS).default(DEFAULT_READ_RESULT_CHARS),
  }),
  examples: [{ ref: 'r-1f0c…', offset: 0, length: 16_384 }],
  sideEffects: 'none',
  async execute({ ref, offset, length }, { payloads }) {
    if (!payloads)
      throw ToolFailure.unavailable('This worker keeps no stored results (no PayloadStore is configured).');
    const slice = await payloads.read(ref, offset, length);
    if (!slice)
      throw ToolFailure.invalidArguments(
        `No stored result has ref "${ref}"; use the ref from the message of the cut result. ` +
          'A result stored longer ago than the store keeps results is gone: call its tool again.',
      );
    const end = offset + slice.text.length;
    return {
      ref,
      offset,
      text: slice.text,
      total: slice.total,
      next: end < slice.total ? { ref, offset: end, length } : null,
    };
  },
});
