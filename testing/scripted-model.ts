/**
 * ScriptedModel: a deterministic ModelClient that answers from a script, with no network. For
 * tests and the demo. It records every request and fails loudly when its script runs out.
 * Worker-side and tests. Deterministic given the same requests; stateful (one step per call), so
 * register one instance per run.
 */
import type { ToolSpec } from '../shared/tools/define-tool.js';
import type { ModelOutcome, ModelResponse, ToolChoice } from '../shared/model/model-response.js';
import { toolError } from '../shared/failures/tool-error.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { ModelNetworkError, ModelServerError } from '../activities/model/model-errors.js';
import { ScriptExhaustedError } from './script-exhausted-error.js';
import type { FixedStep, InvalidShape, Script, ScriptContext } from './script-steps.js';
import { streamScripted, type ScriptedStreaming } from './scripted-streaming.js';

/** One request as the scripted model received it (a deep copy, safe to keep). */
export interface RecordedRequest {
  readonly messages: readonly TranscriptMessage[];
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
}

const DEFAULT_FAILURE_MESSAGES = {
  rate_limited: 'Scripted provider rate-limited the call.',
  tool_unavailable: 'Scripted provider is unavailable. Not retryable.',
  internal_error: 'Scripted provider rejected the request. Not retryable unchanged.',
} as const;

/** A ModelClient that answers call N with step N of its script. */
export class ScriptedModel implements ModelClient {
  readonly #requests: RecordedRequest[] = [];
  readonly #record: boolean;
  readonly #streaming: ScriptedStreaming | undefined;
  #calls = 0;

  constructor(
    /** Named in every error, so a failing test says which script ran out. */
    readonly name: string,
    readonly script: Script,
    /** `record: false` keeps no copies of requests (a long-lived worker's: a copy per turn adds up). */
    options: {
      readonly record?: boolean;
      /** How replies stream when the run streams (`GenerateInput.onDelta`): pieces, timing, hooks. */
      readonly streaming?: ScriptedStreaming;
      /** The step the first call answers (default 0): a run picked up where its transcript says it stands. */
      readonly startAt?: number;
    } = {},
  ) {
    this.#record = options.record ?? true;
    this.#streaming = options.streaming;
    this.#calls = options.startAt ?? 0;
  }

  /** Every request received so far, in order (none when created with `record: false`). */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** How many steps are left. */
  get remaining(): number {
    return Math.max(0, this.script.length - this.#calls);
  }

  /**
   * Answers with the next step. Records the request first, so even a call that throws is visible.
   * Throws `ScriptExhaustedError` when no step is left, and the step's own error for `throw` steps.
   */
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    const index = this.#calls++;
    const request: RecordedRequest = this.#record
      ? structuredClone({ messages: input.messages, tools: input.tools, toolChoice: input.toolChoice })
      : { messages: input.messages, tools: input.tools, toolChoice: input.toolChoice };
    if (this.#record) this.#requests.push(request);
    const step = this.script[index];
    if (step === undefined) {
      const last = request.messages.at(-1);
      throw new ScriptExhaustedError(
        `Scripted model "${this.name}" has no step ${index}: its script has ${this.script.length} step(s), ` +
          `but the run asked for another (${request.messages.length} message(s), last one from ${last?.role ?? 'nobody'}).`,
        this.name,
        index,
      );
    }
    const context: ScriptContext = { ...request, script: this.name, step: index };
    const outcome = answer(step.kind === 'react' ? step.produce(context) : step, index);
    if (input.onDelta && outcome.status === 'ok' && outcome.response)
      await streamScripted(outcome.response, input.onDelta, context, this.#streaming, input.signal);
    return outcome;
  }
}

function answer(step: FixedStep, index: number): ModelOutcome {
  switch (step.kind) {
    case 'respond': {
      const toolCalls = (step.calls ?? []).map((call, i) => ({
        id: `call_${index}_${i}`,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      }));
      const finishReason = step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
      return ok({ text: step.text ?? '', toolCalls, finishReason, ...(step.usage && { usage: step.usage }) });
    }
    case 'fail':
      return {
        status: 'error',
        error: toolError(step.code, step.message ?? DEFAULT_FAILURE_MESSAGES[step.code]),
        ...(step.retryAfterMs !== undefined && { retryAfterMs: step.retryAfterMs }),
      };
    case 'invalid':
      return invalid(step.shape, step.text);
    case 'throw':
      if (step.error === 'network') throw new ModelNetworkError('Scripted provider could not be reached.');
      throw new ModelServerError(`Scripted provider failed (HTTP ${step.statusCode ?? 500}).`, step.statusCode ?? 500);
  }
}

function invalid(shape: InvalidShape, text = ''): ModelOutcome {
  switch (shape) {
    case 'null':
      return { status: 'ok', response: null };
    case 'interrupted':
      return ok({ text, toolCalls: [], finishReason: 'other', interrupted: true });
    case 'empty':
      return ok({ text: '', toolCalls: [], finishReason: 'stop' });
    case 'think-only':
      return ok({ text: `<think>${text}</think>`, toolCalls: [], finishReason: 'stop' });
  }
}

function ok(response: ModelResponse): ModelOutcome {
  return { status: 'ok', response };
}
