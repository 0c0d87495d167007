/**
 * Reactive helpers for scripts: read the failed tool results at the end of the transcript and call
 * again the way a model that follows Cairn's hints would: fill missing fields from
 * `hint.exampleInput`, switch an invalid enum value to the closest of `issues[].allowed`, and merge
 * `hint.nextInput` into the prior input to fetch the rest of partial data.
 * Worker-side and tests; pure and deterministic.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json/json.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { closestValue } from './closest-value.js';
import { getAtPath, setAtPath } from './json-path.js';
import { scriptStep, type FixedStep, type ScriptedCall, type ScriptStep } from './script-steps.js';

type ToolMessage = Extract<TranscriptMessage, { role: 'tool' }>;

/** The parts of a failure's `hint` the repairs use, read defensively from JSON. */
export interface HintView {
  readonly missingFields: readonly string[];
  readonly issues: readonly {
    readonly path: string;
    readonly received?: string;
    readonly allowed?: readonly JsonValue[];
  }[];
  readonly exampleInput?: JsonObject;
  readonly priorInput?: JsonObject;
  readonly nextInput?: JsonObject;
}

/** A failed tool call at the end of the transcript: which call, what the hint says, what it sent. */
export interface FailedCall {
  readonly message: ToolMessage;
  readonly code: string;
  readonly hint: HintView;
  /** `hint.priorInput`, else the arguments of the matching assistant tool call, else `{}`. */
  readonly priorInput: JsonObject;
}

/** The latest batch of tool results: the tool messages after the last assistant message. */
export function lastToolMessages(messages: readonly TranscriptMessage[]): ToolMessage[] {
  const batch: ToolMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'tool') break;
    batch.unshift(message);
  }
  return batch;
}

/** The failed calls among the latest tool results (content `{ error, hint }`), in order. */
export function lastFailedCalls(messages: readonly TranscriptMessage[]): FailedCall[] {
  return lastToolMessages(messages).flatMap((message) => {
    const content = message.content;
    if (!isJsonObject(content) || !isJsonObject(content.error) || !isJsonObject(content.hint)) return [];
    const hint = readHint(content.hint);
    const code = typeof content.error.code === 'string' ? content.error.code : 'unknown';
    return [{ message, code, hint, priorInput: hint.priorInput ?? callArguments(messages, message) ?? {} }];
  });
}

/** Fills each of `hint.missingFields` that `input` lacks from `hint.exampleInput`. */
export function fillMissingFields(input: JsonObject, hint: HintView): JsonObject {
  let repaired = input;
  for (const path of hint.missingFields) {
    const example = hint.exampleInput && getAtPath(hint.exampleInput, path);
    if (getAtPath(repaired, path) === undefined && example !== undefined) repaired = setAtPath(repaired, path, example);
  }
  return repaired;
}

/** Switches each field with an `allowed` list to the allowed value closest to what was sent. */
export function fixEnumValues(input: JsonObject, hint: HintView): JsonObject {
  let repaired = input;
  for (const issue of hint.issues) {
    if (!issue.path || !issue.allowed?.length) continue;
    const current = getAtPath(repaired, issue.path);
    const sent = typeof current === 'string' ? current : (issue.received?.replace(/^"|"$/g, '') ?? '');
    const value = closestValue(sent, issue.allowed);
    if (value !== undefined) repaired = setAtPath(repaired, issue.path, value);
  }
  return repaired;
}

/** Merges `hint.nextInput` (e.g. `{ page: 2 }`) into the prior input. */
export function followNextInput(input: JsonObject, hint: HintView): JsonObject {
  return hint.nextInput ? { ...input, ...hint.nextInput } : input;
}

/** All three repairs, in order: missing fields, enum values, next input. */
export function repairInput(input: JsonObject, hint: HintView): JsonObject {
  return followNextInput(fixEnumValues(fillMissingFields(input, hint), hint), hint);
}

/**
 * A reactive step that calls every failed tool of the latest batch again with its repaired input.
 * With no failed call to repair it answers `otherwise`, or throws (a script that expected a
 * failure and got none should fail loudly).
 */
export function repairLastCalls(options: { readonly text?: string; readonly otherwise?: FixedStep } = {}): ScriptStep {
  return scriptStep.react(({ messages, script, step }) => {
    const calls: ScriptedCall[] = lastFailedCalls(messages).map((failed) => ({
      name: failed.message.name,
      arguments: repairInput(failed.priorInput, failed.hint),
    }));
    if (calls.length > 0) return scriptStep.calls(calls, options.text);
    if (options.otherwise) return options.otherwise;
    throw new Error(`Scripted model "${script}" step ${step}: expected a failed tool result to repair, found none.`);
  }, 'repair last calls');
}

function readHint(hint: JsonObject): HintView {
  const strings = (value: JsonValue | undefined) =>
    Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
  const object = (value: JsonValue | undefined) => (isJsonObject(value) ? value : undefined);
  const issues = Array.isArray(hint.issues) ? hint.issues.filter(isJsonObject) : [];
  return {
    missingFields: strings(hint.missingFields),
    issues: issues.map((issue) => ({
      path: typeof issue.path === 'string' ? issue.path : '',
      ...(typeof issue.received === 'string' && { received: issue.received }),
      ...(Array.isArray(issue.allowed) && { allowed: issue.allowed }),
    })),
    ...(object(hint.exampleInput) && { exampleInput: object(hint.exampleInput) }),
    ...(object(hint.priorInput) && { priorInput: object(hint.priorInput) }),
    ...(object(hint.nextInput) && { nextInput: object(hint.nextInput) }),
  };
}

function callArguments(messages: readonly TranscriptMessage[], result: ToolMessage): JsonObject | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls.find((c) => c.toolCallId === result.toolCallId);
    if (call) return isJsonObject(call.args) ? call.args : undefined;
  }
  return undefined;
}
