/**
 * A person's answer to a run's question: the run's check of it (in its Update validator, so a
 * refused answer never enters history). Text is always a possible answer; an object answers a
 * question about a tool's missing fields, held to that tool's schema. Workflow-safe, pure.
 */
import type { AnyTool } from '../tools/define-tool.js';
import { isJsonObject, type JsonValue } from '../json/json.js';
import { MAX_HUMAN_INPUT_CHARS } from '../size-limits.js';
import type { PendingClarification } from './pending-clarification.js';
import { refuse, type Checked, type Refusal } from './refusal.js';

/**
 * Checks an answer to the pending question. An object answer to a question about a tool's missing
 * fields is held to the schema the run advertises for it: exactly those fields, each valid under
 * the tool's own input schema for it (type, pattern, enum...). Text is always a possible answer
 * (the model reads it). `tools`: the run's tools by name (absent: shape checks only).
 */
export function checkAnswer(
  pending: PendingClarification | null,
  input: { readonly id: string; readonly answer: JsonValue },
  tools?: ReadonlyMap<string, AnyTool>,
): Checked<JsonValue> {
  if (!pending) return refuse('No clarification is pending.', 'not_pending');
  if (!input || typeof input !== 'object') return refuse('Expected { id, answer }.');
  if (input.id !== pending.id)
    return refuse(`Unknown clarification id "${String(input.id)}"; the pending one is "${pending.id}".`, 'not_pending');
  const a: unknown = input.answer;
  if (typeof a === 'string') {
    if (a.trim() === '') return refuse('The answer is empty.');
    if (a.length > MAX_HUMAN_INPUT_CHARS)
      return refuse(`The answer is longer than ${MAX_HUMAN_INPUT_CHARS} characters.`);
    return { ok: true, value: a };
  }
  if (isJsonObject(a) && Object.keys(a).length > 0) {
    if (JSON.stringify(a).length > MAX_HUMAN_INPUT_CHARS)
      return refuse(`The answer is larger than ${MAX_HUMAN_INPUT_CHARS} characters.`);
    return checkFields(pending, a as Record<string, JsonValue>, tools) ?? { ok: true, value: a as JsonValue };
  }
  return refuse(
    `The answer must be non-empty text or an object of fields, not ${Array.isArray(a) ? 'an array' : typeof a}.`,
  );
}

/** The answer's fields against the question's missing fields and the tool's schema for each: the refusal, if any. */
function checkFields(
  pending: PendingClarification,
  answer: Record<string, unknown>,
  tools: ReadonlyMap<string, AnyTool> | undefined,
): Refusal | undefined {
  const missing = pending.missingFields;
  if (!missing?.length) return undefined;
  const absent = missing.filter((f) => !Object.hasOwn(answer, f));
  if (absent.length > 0)
    return refuse(
      `The answer lacks ${absent.map((f) => `"${f}"`).join(', ')}: answer with ${missing.map((f) => `"${f}"`).join(', ')}, or in words.`,
    );
  const extra = Object.keys(answer).filter((k) => !missing.includes(k));
  if (extra.length > 0)
    return refuse(
      `The answer has ${extra.map((f) => `"${f.slice(0, 100)}"`).join(', ')}, which the question did not ask; it asks for ${missing.map((f) => `"${f}"`).join(', ')}.`,
    );
  const tool = tools?.get(pending.tool ?? '');
  if (!tool) return undefined;
  for (const field of missing) {
    const schema = fieldSchema(tool.input, field);
    if (!schema) continue;
    const checked = schema.safeParse(answer[field]);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return refuse(`The answer's "${field}" is invalid for ${tool.name}: ${issue?.message ?? 'invalid'}.`);
    }
  }
  return undefined;
}

interface FieldParser {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { message: string }[] } };
}

/** The zod schema of the (dotted) field `path` of an object schema; undefined when it is not one. */
function fieldSchema(input: unknown, path: string): FieldParser | undefined {
  let at: unknown = input;
  for (const key of path.split('.')) {
    const shape = (at as { shape?: unknown }).shape;
    if (!isJsonObject(shape) || !Object.hasOwn(shape, key)) return undefined;
    at = shape[key];
  }
  return typeof (at as FieldParser).safeParse === 'function' ? (at as FieldParser) : undefined;
}
