import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { defineTool, type ToolContext } from '../shared/tools/define-tool.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { Result, validator } from '../shared/guards/validator.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import { createToolActivities } from './tool-activity.js';

const contexts: ToolContext<{ db: string }>[] = [];
const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  input: z.object({ text: z.string() }),
  output: z.object({ echoed: z.string() }),
  examples: [{ text: 'hello' }],
  execute: ({ text }, context: ToolContext<{ db: string }>) => {
    contexts.push(context);
    if (text === 'throttle') throw ToolFailure.rateLimited('Too many requests', 1_500);
    if (text === 'page')
      throw ToolFailure.partialData({ echoed: 'pa' }, { message: 'Only half came back.', nextInput: { offset: 2 } });
    if (text === 'unusable')
      throw ToolFailure.invalidArguments('That text is reserved.', {
        message: 'Pick another text.',
        nextInput: undefined,
      });
    if (text === 'crash') throw new TypeError('Cannot read properties of undefined');
    if (text === 'string crash') throw 'plain string';
    if (text === 'typed') throw ApplicationFailure.nonRetryable('do not retry', 'CustomType');
    if (text === 'typed code')
      throw ApplicationFailure.create({ message: 'no such record', type: 'semantic_error', details: [{ id: 7 }] });
    if (text === 'typed retryable code')
      throw ApplicationFailure.create({ message: 'try later', type: 'rate_limited' });
    if (text === 'truncated') return '{"echoed": "tru';
    return { echoed: text };
  },
});
const judged = defineTool({
  name: 'judged',
  description: 'A tool with post-hooks.',
  input: z.object({ isbn: z.string() }),
  postHook: [
    validator('isbn_13', (book: { isbn: string }) =>
      book.isbn.length === 13
        ? Result.success()
        : Result.failure(`An ISBN must be 13 digits; only ${book.isbn.length} are present.`),
    ),
    validator('explode', (book: { isbn: string }) => {
      if (book.isbn === '0000000000000') throw new RangeError('checksum table missing');
      return { ...book, checked: true };
    }),
  ],
  execute: ({ isbn }) => ({ isbn }),
});

const { runTool } = createToolActivities([echo, judged], { db: 'primary' });
// The worker logs every failed attempt; the expected crashes below need not fill the test output.
const env = new MockActivityEnvironment(
  { attempt: 2, workflowExecution: { workflowId: 'wf-42', runId: 'run-1' } },
  { logger: new DefaultLogger('ERROR') },
);
const run = (name: string, args: RunToolInput['args'], toolCallId = '4.1'): Promise<ToolResult> =>
  env.run(runTool, { name, toolCallId, args });

describe('runTool', () => {
  it('returns ok with the guarded result, and hands the tool its context', async () => {
    const result = await run('echo', { text: 'hi' });
    expect(result).toMatchObject({
      status: 'ok',
      name: 'echo',
      toolCallId: '4.1',
      result: { echoed: 'hi' },
      telemetry: { attempt: 2 },
    });
    expect(result.telemetry.durationMs).toBeGreaterThanOrEqual(0);
    const context = contexts.at(-1)!;
    expect(context).toMatchObject({
      toolCallId: '4.1',
      idempotencyKey: 'wf-42/4.1',
      attempt: 2,
      deps: { db: 'primary' },
    });
    expect(context.signal).toBeInstanceOf(AbortSignal);
  });

  it('turns a ToolFailure into an error result with a hint, never a throw', async () => {
    expect(await run('echo', { text: 'throttle' })).toMatchObject({
      status: 'error',
      error: { code: 'rate_limited', kind: 'transient', message: 'Too many requests' },
      retryHint: { reason: 'rate_limited', tool: 'echo', retryAfterMs: 1_500, priorInput: { text: 'throttle' } },
    });
    expect(await run('echo', { text: 'page' })).toMatchObject({
      error: { code: 'partial_data' },
      retryHint: { reason: 'partial_data', nextInput: { offset: 2 }, message: 'Only half came back.' },
      partialResult: { echoed: 'pa' },
    });
  });

  it('adds repair context to a thrown invalidArguments and drops undefined hint fields', async () => {
    const result = await run('echo', { text: 'unusable' });
    expect(result).toMatchObject({
      error: { code: 'invalid_arguments' },
      retryHint: {
        reason: 'invalid_arguments',
        tool: 'echo',
        restrictToTool: true,
        exampleInput: { text: 'hello' },
        message: 'Pick another text.',
      },
    });
    expect(result.status === 'error' && result.retryHint).not.toHaveProperty('nextInput');
  });

  it('rethrows any other throw as a retryable internal_error ApplicationFailure with the cause', async () => {
    const failure = await run('echo', { text: 'crash' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const app = failure as ApplicationFailure;
    expect(app.type).toBe('internal_error');
    expect(app.nonRetryable).toBe(false);
    expect(app.message).toBe('Cannot read properties of undefined');
    expect(app.cause).toBeInstanceOf(TypeError);
    await expect(run('echo', { text: 'string crash' })).rejects.toMatchObject({
      type: 'internal_error',
      message: 'plain string',
    });
  });

  it('lets an ApplicationFailure the tool typed itself through unchanged', async () => {
    await expect(run('echo', { text: 'typed' })).rejects.toMatchObject({ type: 'CustomType', nonRetryable: true });
    await expect(run('echo', { text: 'typed retryable code' })).rejects.toMatchObject({
      type: 'rate_limited',
      nonRetryable: false,
    });
  });

  // The tool activity's retry policy lists no types (history economy): the activity says it.
  it('marks an ApplicationFailure typed with a Cairn code no retry can fix as non-retryable, keeping its message and details', async () => {
    await expect(run('echo', { text: 'typed code' })).rejects.toMatchObject({
      type: 'semantic_error',
      nonRetryable: true,
      message: 'no such record',
      details: [{ id: 7 }],
    });
  });

  it('guards the output: truncated JSON is output_not_json, not a crash', async () => {
    expect(await run('echo', { text: 'truncated' })).toMatchObject({
      status: 'error',
      error: { code: 'output_not_json' },
      retryHint: { reason: 'malformed_response' },
    });
  });

  it('runs post-hooks: a refusal is validator_failed with name and feedback', async () => {
    const result = await run('judged', { isbn: '0441013597' });
    expect(result).toMatchObject({
      status: 'validator_failed',
      validator: 'isbn_13',
      feedback: 'An ISBN must be 13 digits; only 10 are present.',
      name: 'judged',
    });
    expect(result).not.toHaveProperty('result');
  });

  it('runs post-hooks: a non-Result return becomes the result', async () => {
    expect(await run('judged', { isbn: '9780441013593' })).toMatchObject({
      status: 'ok',
      result: { isbn: '9780441013593', checked: true },
    });
  });

  it('runs post-hooks: a throw is post_hook_error', async () => {
    expect(await run('judged', { isbn: '0000000000000' })).toMatchObject({
      status: 'error',
      error: { code: 'post_hook_error', message: 'post_hook RangeError: checksum table missing' },
      retryHint: { reason: 'internal_error', tool: 'judged' },
    });
  });

  it('answers an unknown tool with unknown_tool', async () => {
    expect(await run('nope', {})).toMatchObject({
      status: 'error',
      error: { code: 'unknown_tool' },
      retryHint: { availableTools: ['echo', 'judged'] },
    });
  });

  it('returns results that survive JSON (the activity boundary)', async () => {
    for (const args of [{ text: 'hi' }, { text: 'page' }, { text: 'truncated' }]) {
      const result = await run('echo', args);
      expect(JSON.parse(JSON.stringify(result))).toStrictEqual(result);
    }
  });
});
