/**
 * Judges one model response on two axes (seed 004): is it usable at all (structural), and does it
 * say anything (semantic). A response with tool calls is never degenerate: the calls are the
 * answer. Workflow-safe, deterministic.
 */
import type { ModelResponse } from '../shared/model/model-response.js';
import { visibleText } from '../shared/model/think-block.js';

export { visibleText };

export type InvalidResponseReason = 'nil_response' | 'interrupted' | 'empty_response';

export type ResponseVerdict =
  | { readonly valid: true }
  | { readonly valid: false; readonly reason: InvalidResponseReason };

export function validateResponse(response: ModelResponse | null | undefined): ResponseVerdict {
  if (!response) return { valid: false, reason: 'nil_response' };
  if (response.interrupted) return { valid: false, reason: 'interrupted' };
  if (response.toolCalls.length > 0) return { valid: true };
  if (response.text.trim() === '') return { valid: false, reason: 'empty_response' };
  return { valid: true };
}

/** A structurally valid text response with nothing visible once thinking is stripped. */
export function isDegenerate(response: ModelResponse | null | undefined): boolean {
  if (!response || response.interrupted || response.toolCalls.length > 0) return false;
  return visibleText(response.text) === '';
}
