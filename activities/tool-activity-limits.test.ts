/**
 * The tool activity's guards: result size (kept what fits, or offloaded to a PayloadStore and read
 * back with read_result), bounded failures, the idempotency key from the workflow, heartbeats,
 * cancellation reported as cancellation, and shadow-mode records.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { defineTool, type ToolContext } from '../shared/tools/define-tool.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { readResult } from '../shared/tools/read-result.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import { jsonSize } from '../shared/json/json-measure.js';
import { DEFAULT_MAX_RESULT_BYTES, HARD_MAX_RESULT_BYTES } from '../shared/size-limits.js';
import { FilePayloadStore } from './file-payload-store.js';
import { createToolActivities } from './tool-activity.js';

const MB = 1024 * 1024;
const orders = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `O-${i}`, note: 'n'.repeat(200) }));
const keys: string[] = [];
const big = defineTool({
  name: 'big',
  description: 'Returns as much as asked.',
  input: z.object({ bytes: z.number(), as: z.enum(['orders', 'text']).default('orders') }),
  execute: ({ bytes, as }, { idempotencyKey }) => {
    keys.push(idempotencyKey);
    return as === 'text' ? 't'.repeat(bytes) : { orders: orders(Math.ceil(bytes / 220)), page: 1 };
  },
});
const small = defineTool({
  name: 'small',
  description: 'Small limit.',
  input: z.object({}),
  maxResultBytes: 8_192,
  execute: () => ({ text: 'x'.repeat(20_000) }),
});
const loud = defineTool({
  name: 'loud',
  description: 'Fails with huge text.',
  input: z.object({}),
  execute: () => {
    throw new ToolFailure('partial_data', 'M'.repeat(5 * MB), {
      partialResult: { rows: orders(20_000) },
      hint: { message: 'H'.repeat(MB), nextInput: { page: 2, junk: 'j'.repeat(MB) } },
    });
  },
});
let started = 0;
const slow = defineTool({
  name: 'slow',
  description: 'Takes its time; honours the signal or not.',
  input: z.object({
    ms: z.number(),
    honour: z.boolean().default(false),
    throwAs: z.enum(['abort', 'type']).default('abort'),
  }),
  execute: ({ ms, honour, throwAs }, { signal }: ToolContext) =>
    new Promise<{ done: boolean }>((resolve, reject) => {
      started++;
      const timer = setTimeout(() => resolve({ done: true }), ms);
      if (honour) {
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(
            throwAs === 'abort'
              ? Object.assign(new Error('aborted'), { name: 'AbortError' })
              : new TypeError('socket closed'),
          );
        });
      }
    }),
});
const shadowed = defineTool({
  name: 'shadowed',
  description: 'Shadow schema.',
  input: z.object({}),
  output: z.object({ status: z.enum(['placed', 'shipped']) }),
  guardMode: 'shadow',
  execute: () => ({ status: 'shipping' }),
});
const TOOLS = [big, small, loud, slow, shadowed, readResult];
const logger = new DefaultLogger('ERROR');
const env = () =>
  new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-7', runId: 'r' }, activityId: 'a' }, { logger });
const input = (name: string, args: RunToolInput['args'], extra: Partial<RunToolInput> = {}): RunToolInput => ({
  name,
  toolCallId: '2.1',
  args,
  ...extra,
});
type Run = (input: RunToolInput) => Promise<ToolResult>;
const run = (fn: Run, runInput: RunToolInput, environment = env()): Promise<ToolResult> =>
  environment.run(fn, runInput);

describe('tool result size', () => {
  const { runTool } = createToolActivities(TOOLS);

  it.each([3, 10])(
    'a %i MB output keeps what fits as partial_data, under the default limit, saying what was cut',
    async (mb) => {
      const result = await run(runTool, input('big', { bytes: mb * MB }));
      expect(result).toMatchObject({
        status: 'error',
        error: { code: 'partial_data' },
        retryHint: { reason: 'partial_data' },
      });
      expect(jsonSize(result)).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_BYTES);
      const failure = result as Extract<ToolResult, { status: 'error' }>;
      expect(failure.error.message).toMatch(
        new RegExp(
          `^big returned \\d+ bytes of JSON, over its limit of ${DEFAULT_MAX_RESULT_BYTES}; only the start is kept \\(the result keeps 1 of 2 keys; \`orders\` keeps \\d+ of \\d+ items\\)\\.$`,
        ),
      );
      expect(failure.retryHint!.message).toBe(
        'Use the part kept, or call big again asking for less (a narrower query, a smaller page).',
      );
      expect((failure.partialResult as { orders: unknown[] }).orders.length).toBeGreaterThan(1_000);
    },
  );

  it('a tool limit wins over the worker limit; no limit goes above the hard maximum', async () => {
    const result = await run(runTool, input('small', {}));
    expect(result.status).toBe('error');
    expect(jsonSize(result)).toBeLessThanOrEqual(8_192);
    const { runTool: roomy } = createToolActivities(TOOLS, undefined, { maxResultBytes: 100 * MB });
    const huge = await run(roomy, input('big', { bytes: 3 * MB }));
    expect(jsonSize(huge)).toBeLessThanOrEqual(HARD_MAX_RESULT_BYTES);
    const fits = await run(roomy, input('big', { bytes: MB }));
    expect(fits.status).toBe('ok');
  });

  it('bounds a failure: messages, hint and partial result', async () => {
    const result = await run(runTool, input('loud', {}));
    expect(result).toMatchObject({ status: 'error', error: { code: 'partial_data' } });
    expect(jsonSize(result)).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_BYTES);
    const failure = result as Extract<ToolResult, { status: 'error' }>;
    expect(failure.error.message.length).toBeLessThanOrEqual(2_000);
    expect(jsonSize(failure.retryHint)).toBeLessThanOrEqual(16 * 1024);
    expect((failure.partialResult as { rows: unknown[] }).rows.length).toBeGreaterThan(100);
  });
});

describe('offloading to a PayloadStore', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('stores the whole result and read_result pages through it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cairn-payloads-'));
    dirs.push(directory);
    const { runTool } = createToolActivities(TOOLS, undefined, { payloadStore: new FilePayloadStore({ directory }) });
    const result = (await run(runTool, input('big', { bytes: 3 * MB }))) as Extract<ToolResult, { status: 'error' }>;
    expect(result.error.code).toBe('partial_data');
    const ref = /"ref": "([0-9a-f-]{36})"/.exec(result.error.message)![1]!;
    expect(result.retryHint!.message).toContain(`read_result (ref "${ref}")`);
    expect(await readdir(directory)).toEqual([`${ref}.json`]);

    let text = '';
    type Page = { ref: string; offset: number; length: number };
    let next: Page | null = { ref, offset: 0, length: 65_536 };
    let pages = 0;
    while (next) {
      const page = (await run(runTool, input('read_result', next))) as Extract<ToolResult, { status: 'ok' }>;
      expect(page.status).toBe('ok');
      expect(jsonSize(page)).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_BYTES);
      const body = page.result as { text: string; next: Page | null };
      text += body.text;
      next = body.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(40);
    expect(JSON.parse(text)).toEqual({ orders: orders(Math.ceil((3 * MB) / 220)), page: 1 });
  });

  it('read_result refuses an unknown or path-like ref, and says when the worker has no store', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cairn-payloads-'));
    dirs.push(directory);
    const { runTool } = createToolActivities(TOOLS, undefined, { payloadStore: new FilePayloadStore({ directory }) });
    for (const ref of ['00000000-0000-0000-0000-000000000000', '../../etc/passwd']) {
      expect(await run(runTool, input('read_result', { ref, offset: 0, length: 10 }))).toMatchObject({
        status: 'error',
        error: { code: 'invalid_arguments' },
      });
    }
    const { runTool: storeless } = createToolActivities(TOOLS);
    expect(await run(storeless, input('read_result', { ref: 'x', offset: 0, length: 10 }))).toMatchObject({
      error: { code: 'tool_unavailable' },
    });
  });

  it('prunes old files', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cairn-payloads-'));
    dirs.push(directory);
    const store = new FilePayloadStore({ directory });
    await store.put('{"a":1}', { workflowId: 'w', toolCallId: '1', tool: 't' });
    expect(await store.prune(60_000)).toBe(0);
    expect(await store.prune(0, Date.now() + 1_000)).toBe(1);
    expect(await readdir(directory)).toEqual([]);
  });
});

describe('idempotency key', () => {
  const { runTool } = createToolActivities(TOOLS);
  it('is the key the workflow sent, else <workflowId>/<toolCallId> as before', async () => {
    await run(runTool, input('big', { bytes: 10 }, { idempotencyKey: 'wf-7/big#0123456789abcdef/1' }));
    await run(runTool, input('big', { bytes: 10 }));
    expect(keys.slice(-2)).toEqual(['wf-7/big#0123456789abcdef/1', 'wf-7/2.1']);
  });
});

describe('heartbeats and cancellation', () => {
  it('heartbeats while the tool runs', async () => {
    const { runTool } = createToolActivities(TOOLS, undefined, { heartbeatMs: 20 });
    const environment = env();
    let beats = 0;
    environment.on('heartbeat', () => beats++);
    expect(await run(runTool, input('slow', { ms: 200 }), environment)).toMatchObject({ status: 'ok' });
    expect(beats).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['ignores the signal', { honour: false }],
    ['throws an AbortError', { honour: true, throwAs: 'abort' }],
    ['throws something else on abort', { honour: true, throwAs: 'type' }],
  ])('a cancelled call is a CancelledFailure when the tool %s', async (_label, how) => {
    const { runTool } = createToolActivities(TOOLS, undefined, { heartbeatMs: 20 });
    const environment = env();
    const before = started;
    const running = run(runTool, input('slow', { ms: 30_000, ...how }), environment);
    while (started === before) await new Promise((r) => setTimeout(r, 5));
    environment.cancel('CANCELLED');
    const error = await running.then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error).toMatchObject({ name: 'CancelledFailure' });
  });
});

describe('shadow records', () => {
  it('travel in the result; the result passes on', async () => {
    const { runTool } = createToolActivities(TOOLS);
    const result = await run(runTool, input('shadowed', {}));
    expect(result).toMatchObject({
      status: 'ok',
      result: { status: 'shipping' },
      shadow: [{ guard: 'output', code: 'output_schema_violation', rule: 'invalid_value', path: 'status', count: 1 }],
    });
  });
});
