/**
 * Seed 004's response validator (structural validity, degenerate think-only replies) and what
 * planModelOutcome does with each kind of model outcome: retry, nudge, back off, finalize, finish.
 */
import { describe, expect, it } from 'vitest';
import type { ModelOutcome, ModelResponse } from '../shared/model/model-response.js';
import { z } from 'zod';
import { defineTool } from '../shared/tools/define-tool.js';
import { toolError } from '../shared/failures/tool-error.js';
import { planModelOutcome } from './plan-model-outcome.js';
import { toolboxOf } from './toolbox.js';
import { isDegenerate, validateResponse, visibleText } from './response-validator.js';
import {
  INTERRUPTED,
  NO_RESPONSE,
  afterModel,
  checked,
  drive,
  failed,
  modelError,
  ok,
  rawCall,
  start,
  stepOf,
  textReply,
  toolCall,
  toolCallsReply,
  turnResulting,
  TOOLS,
} from './testing.js';

const response = (text: string, calls = 0, interrupted = false): ModelResponse => ({
  text,
  toolCalls: Array.from({ length: calls }, () => rawCall('lookup')),
  finishReason: calls > 0 ? 'tool_calls' : 'stop',
  ...(interrupted ? { interrupted } : {}),
});
const VALID = { valid: true };
const NUDGE = 'Your last reply had no visible answer and no tool call. Reply with your answer or call a tool.';
const finalNote = (reason: string) => `Stop calling tools (${reason}). Give your final answer now from what you have.`;

describe('validateResponse and isDegenerate', () => {
  it.each<[string, ModelResponse | null | undefined, unknown]>([
    ['null', null, { valid: false, reason: 'nil_response' }],
    ['undefined', undefined, { valid: false, reason: 'nil_response' }],
    ['an interrupted stream', response('The orders are', 0, true), { valid: false, reason: 'interrupted' }],
    ['an interrupted stream with tool calls', response('', 1, true), { valid: false, reason: 'interrupted' }],
    ['no text and no calls', response(''), { valid: false, reason: 'empty_response' }],
    ['whitespace only', response(' \n\t'), { valid: false, reason: 'empty_response' }],
  ])('%s is invalid, and not degenerate', (_name, value, verdict) => {
    expect(validateResponse(value)).toEqual(verdict);
    if (value?.text.trim() !== '') expect(isDegenerate(value)).toBe(false);
  });

  it.each<[string, ModelResponse, boolean, string]>([
    ['tool calls, no text', response('', 2), false, ''],
    ['tool calls after thinking only', response('<think>I should look it up</think>', 1), false, ''],
    ['a closed think block only', response('<think>Let me plan.</think>\n  '), true, ''],
    ['an unclosed think block (cut off while thinking)', response('<think>Let me plan the'), true, ''],
    ['upper-case tags', response('<THINK>plan</THINK>'), true, ''],
    ['two think blocks', response('<think>a</think>\n<think>b</think>'), true, ''],
    ['text after thinking', response('<think>plan</think>\nThe order shipped.'), false, 'The order shipped.'],
    ['text before an unclosed think', response('It shipped. <think>should I add'), false, 'It shipped.'],
    ['plain text', response('Hello.'), false, 'Hello.'],
  ])('%s is valid; degenerate: %s', (_name, value, degenerate, visible) => {
    expect(validateResponse(value)).toEqual(VALID);
    expect(isDegenerate(value)).toBe(degenerate);
    expect(visibleText(value.text)).toBe(visible);
  });
});

const empty: ModelOutcome = { status: 'ok', response: response('') };
const thinkOnly = (text: string): ModelOutcome => ({ status: 'ok', response: response(text) });

describe('planModelOutcome: unusable responses are retried, then the run is finalized', () => {
  it('retries up to maxModelRetries with the same tool choice, then forces a final turn', () => {
    const trace = drive({ model: [NO_RESPONSE, INTERRUPTED, empty, textReply('Best effort.')] });
    expect(trace.modelCalls.slice(0, 3).map((s) => s.toolChoice)).toEqual(['auto', 'auto', 'auto']);
    expect(trace.modelCalls[3]).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(trace.notes).toEqual([finalNote('the model response was unusable (empty_response)')]);
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: 'Best effort.',
      reason: 'the model response was unusable (empty_response)',
    });
    expect(trace.last.state.turn).toBe(1); // unusable responses are not turns
  });

  it('keeps a restricted tool choice for the retry', () => {
    const lookup = toolCall('lookup');
    const repair = turnResulting(start().state, [checked(lookup)], (c) =>
      failed(c, 'invalid_arguments', { restrictToTool: true }),
    );
    expect(afterModel(repair.state, NO_RESPONSE).step).toEqual({
      type: 'call_model',
      toolChoice: { tool: 'lookup' },
      tools: [...TOOLS],
    });
  });

  it('counts retries per turn: a usable response resets the count', () => {
    const trace = drive({
      model: [
        NO_RESPONSE,
        NO_RESPONSE,
        toolCallsReply([rawCall('lookup')]),
        NO_RESPONSE,
        NO_RESPONSE,
        textReply('Done.'),
      ],
      tool: (c) => ok(c),
    });
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Done.', reason: null });
  });

  it('ends the run when the final turn is unusable too', () => {
    const trace = drive({ policy: { maxModelRetries: 0 }, model: [NO_RESPONSE, NO_RESPONSE] });
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: 'The run ended without a final answer: the model response was unusable (nil_response).',
      reason: 'the model response was unusable (nil_response)',
    });
  });
});

describe('planModelOutcome: degenerate (think-only) responses are nudged, then finalized', () => {
  it('nudges up to maxNudges with a note, then forces a final turn', () => {
    const trace = drive({
      model: [thinkOnly('<think>hmm</think>'), thinkOnly('<think>still'), textReply('<think>ok</think>It shipped.')],
    });
    expect(trace.modelCalls[1]).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    expect(trace.modelCalls[2]).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(trace.notes).toEqual([NUDGE, finalNote('the model gave no visible answer')]);
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: 'It shipped.',
      reason: 'the model gave no visible answer',
    });
  });

  it('follows maxNudges, and ends the run when the final turn is degenerate too', () => {
    const trace = drive({ policy: { maxNudges: 2 }, model: [1, 2, 3, 4].map(() => thinkOnly('<think>…</think>')) });
    expect(trace.notes.filter((n) => n === NUDGE)).toHaveLength(2);
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: 'The run ended without a final answer: the model gave no visible answer.',
      reason: 'the model gave no visible answer',
    });
  });
});

describe('planModelOutcome: provider failures (more in provider-wait.test.ts)', () => {
  it('a rate-limited model waits at least its retry-after, then calls the model again the same way, not counted as a retry', () => {
    const plan = afterModel(start().state, modelError('rate_limited', 3_000));
    const step = stepOf(plan, 'back_off');
    expect(step).toMatchObject({
      reason: 'model rate-limited',
      next: { type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] },
    });
    expect(step.delayMs).toBeGreaterThanOrEqual(3_000);
    expect(step.delayMs).toBeLessThan(4_000);
    expect(plan.state).toMatchObject({
      phase: 'backing_off',
      modelRetries: 0,
      turn: 0,
      providerWait: { since: 0, attempts: 1 },
    });
  });

  it('any other provider failure ends the run at once, failing it as model_unavailable', () => {
    const plan = afterModel(start().state, modelError('tool_unavailable'));
    expect(stepOf(plan, 'finish')).toMatchObject({
      answer: 'The run ended: the model could not be reached (model call failed: tool_unavailable)',
      end: { code: 'model_unavailable', fail: true },
    });
  });

  // Regression: finish() takes its reason from `state.finalizing`, which is null here: an unreachable model
  // ends the run with `reason: null`, the same as a normal answer, so callers cannot tell them apart.
  it('an unreachable model ends the run with a reason', () => {
    const plan = afterModel(start().state, modelError('tool_unavailable'));
    expect(stepOf(plan, 'finish').reason).toEqual(expect.any(String));
  });
});

describe('planModelOutcome: a provider retry-after is waited out up to maxRetryAfterMs, never longer', () => {
  it.each([
    ['the default ceiling', {}, 600_000],
    ['a custom ceiling', { backoff: { maxRetryAfterMs: 30_000 } }, 30_000],
  ])('%s', (_name, policy, ceiling) => {
    const plan = afterModel(
      start({ ...policy, modelPatienceMs: 3_600_000 }).state,
      modelError('rate_limited', 36_000_000),
    );
    const delay = stepOf(plan, 'back_off').delayMs;
    // The ceiling, plus at most the first exponential step of jitter.
    expect(delay).toBeGreaterThanOrEqual(ceiling);
    expect(delay).toBeLessThan(ceiling + 1_000);
  });
});

describe('planModelOutcome: usable responses', () => {
  it('text finishes the run with thinking stripped', () => {
    const plan = afterModel(start().state, textReply('<think>check the ledger</think>\nOrder A-17 shipped on 3 May.'));
    expect(plan.step).toEqual({ type: 'finish', answer: 'Order A-17 shipped on 3 May.', reason: null });
    expect(plan.state).toMatchObject({ phase: 'done', turn: 1 });
  });

  it('tool calls are checked by the toolbox, numbered by turn, recorded as the reply and admitted', () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up an order.',
      input: z.object({ order_id: z.string() }),
      execute: () => ({}),
    });
    const refund = defineTool({
      name: 'refund',
      description: 'Refund an order.',
      input: z.object({ order_id: z.string() }),
      execute: () => ({}),
    });
    const calls = [
      rawCall('lookup', { order_id: 'A-17' }),
      { id: 'call_9', name: 'refund', arguments: '{"order_id":' },
    ];
    const plan = planModelOutcome(
      start().state,
      toolCallsReply(calls, '<think>two calls</think>'),
      toolboxOf([lookup, refund]),
      0,
    );
    expect(plan.step).toEqual({ type: 'execute_tools', calls: [toolCall('lookup', { order_id: 'A-17' }, '1.1')] });
    expect(plan.reply).toEqual({
      text: '<think>two calls</think>',
      toolCalls: [
        toolCall('lookup', { order_id: 'A-17' }, '1.1'),
        { toolCallId: '1.2', providerCallId: 'call_9', name: 'refund', args: '{"order_id":' },
      ],
    });
    expect(plan.state.batch?.results['1.2']).toMatchObject({ status: 'error', error: { code: 'malformed_arguments' } });
    expect(plan.state).toMatchObject({ phase: 'tools', turn: 1 });
  });

  it('tool calls in the final turn end the run with the visible text', () => {
    const final = afterModel(start().state, INTERRUPTED);
    const forced = afterModel(afterModel(final.state, INTERRUPTED).state, INTERRUPTED);
    expect(forced.step).toMatchObject({ type: 'call_model', toolChoice: 'none' });
    const plan = afterModel(forced.state, toolCallsReply([rawCall('lookup')], 'I cannot finish the lookup.'));
    expect(plan.step).toEqual({
      type: 'finish',
      answer: 'I cannot finish the lookup.',
      reason: 'the model response was unusable (interrupted)',
    });
  });
});

describe('planModelOutcome: a reply the boundary refused (malformed_model_output)', () => {
  it('is asked again within maxModelRetries, then the run gets a forced final turn saying why', () => {
    const trace = drive({
      policy: { maxModelRetries: 2 },
      model: [
        modelError('malformed_model_output'),
        modelError('malformed_model_output'),
        modelError('malformed_model_output'),
        textReply('Best effort.'),
      ],
    });
    expect(trace.modelCalls.map((s) => s.toolChoice)).toEqual(['auto', 'auto', 'auto', 'none']);
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: 'Best effort.',
      reason: expect.stringMatching(/^the model's reply was malformed/),
    });
  });
});

describe('planModelOutcome: what the transcript and the run report keep', () => {
  it('unusable replies leave nothing in the transcript; the answer the model gave ends it', () => {
    const trace = drive({ model: [NO_RESPONSE, empty, textReply('<think>done</think>It shipped.')] });
    expect(trace.transcript).toEqual([{ role: 'assistant', content: 'It shipped.', toolCalls: [] }]);
  });

  it('an unreachable model ends the run at once, telling the model nothing, with the code as the reason', () => {
    const plan = afterModel(start().state, modelError('tool_unavailable'));
    expect(plan).toMatchObject({
      step: { type: 'finish', reason: expect.stringMatching(/^model_unavailable: /) },
      notes: [],
    });
    // The run's own words are not put in the model's mouth.
    expect(plan.reply).toBeUndefined();
  });

  it('a malformed reply in the final turn ends the run saying why, with at most 200 characters of the error', () => {
    const malformed: ModelOutcome = { status: 'error', error: toolError('malformed_model_output', 'x'.repeat(1_000)) };
    const trace = drive({ policy: { maxModelRetries: 0 }, model: [malformed, malformed] });
    const why = `the model's reply was malformed (malformed_model_output: ${'x'.repeat(200)})`;
    expect(trace.notes).toEqual([finalNote(why)]);
    expect(trace.last.step).toEqual({
      type: 'finish',
      answer: `The run ended without a final answer: ${why}.`,
      reason: why,
    });
  });
});
