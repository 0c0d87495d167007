/**
 * Every row of the failure taxonomy, produced through the code path that really emits it, with
 * its code, kind and retry reason checked; and the two docs checked against the table.
 * Rows the planner emits (policy refusals) are produced and tested in planner/; here they are only
 * checked to be exactly the policy rows, so a new code cannot slip in without a producer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ActivityFailure, RetryState, defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { FAILURES, TOOL_ERROR_CODES, type ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import { defineTool } from '../shared/tools/define-tool.js';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { Result, validator } from '../shared/guards/validator.js';
import { checkToolCall } from '../shared/guards/validate-arguments.js';
import { fromError } from '../shared/failures/tool-error.js';
import { errorResult, failureCode, failureReason, type ToolResult } from '../shared/tools/tool-result.js';
import { resultAfterRetries } from '../shared/failures/after-retries.js';
import { checkModelOutcome } from '../shared/model/model-outcome-check.js';
import { toModelView } from '../shared/tools/model-view.js';
import { HINT_ACTIONS } from '../planner/hint-actions.js';
import { FAILING_END_CODES, RUN_END_CODES } from '../shared/agent/run-outcome.js';
import { createToolActivities } from './tool-activity.js';

const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;
const Order = z.object({ id: z.string(), status: z.enum(STATUSES) });
const searchOrders = defineTool({
  name: 'search_orders',
  description: 'Search orders.',
  input: z.object({
    customer_id: z.string(),
    status: z.enum(STATUSES).optional(),
    page: z.number().int().min(1).default(1),
  }),
  output: z.object({ orders: z.array(Order), page: z.number(), has_more: z.boolean() }),
  examples: [{ customer_id: 'C-9921' }],
  check: (r) =>
    r.has_more && r.page === 1 && r.orders.length === 0
      ? { code: 'semantic_error', message: 'has_more=true but page 1 returned 0 orders.' }
      : r.has_more
        ? { code: 'partial_data', message: `Call again with page=${r.page + 1}.`, nextInput: { page: r.page + 1 } }
        : undefined,
  execute: ({ customer_id }) => {
    if (customer_id === 'truncated') return '{"orders": [{"id": "O-1", "status"';
    if (customer_id === 'shipping')
      return JSON.stringify({ orders: [{ id: 'O-1', status: 'shipping' }], page: 1, has_more: false });
    if (customer_id === 'empty') return { orders: [], page: 1, has_more: true };
    if (customer_id === 'paged')
      return { orders: [{ id: 'O-1', status: 'shipped' as const }], page: 1, has_more: true };
    if (customer_id === 'slow') throw ToolFailure.timeout('The order index did not answer within 5 s.');
    if (customer_id === 'busy') throw ToolFailure.rateLimited('Order API: 429 Too Many Requests.', 2_000);
    if (customer_id === 'down') throw ToolFailure.unavailable('Order API: 503 Service Unavailable.');
    if (customer_id === 'crash') throw new TypeError("Cannot read properties of undefined (reading 'rows')");
    return { orders: [], page: 1, has_more: false };
  },
});
const findBook = defineTool({
  name: 'find_book',
  description: 'Find a book by title.',
  input: z.object({ title: z.string() }),
  postHook: [
    validator('isbn_13', (book: { isbn: string }) =>
      book.isbn.length === 13
        ? Result.success()
        : Result.failure(`An ISBN must be 13 digits; only ${book.isbn.length} are present.`),
    ),
    validator('needs_isbn_table', () => {
      throw new RangeError('checksum table missing');
    }),
  ],
  execute: ({ title }) => ({ title, isbn: title === 'Dune' ? '9780441013593' : '0441013597' }),
});
const tools = [searchOrders, findBook];
const { runTool } = createToolActivities(tools);
const env = new MockActivityEnvironment(
  { workflowExecution: { workflowId: 'wf', runId: 'r' } },
  { logger: new DefaultLogger('ERROR') },
);

const check = (name: string, args: string): ToolResult =>
  checkToolCall({ name, arguments: args }, tools, { toolCallId: '1.1' }).failure!;
const run = (name: string, args: Record<string, string>): Promise<ToolResult> =>
  env.run(runTool, { name, toolCallId: '1.1', args });

/** A crash as the workflow sees it once retries are exhausted: ActivityFailure around the converted failure. */
async function exhausted(args: Record<string, string>): Promise<ToolResult> {
  const thrown = await run('search_orders', args).then(
    () => new Error('expected a throw'),
    (err: unknown) => err as Error,
  );
  const received = defaultFailureConverter.failureToError(
    defaultFailureConverter.errorToFailure(thrown, defaultPayloadConverter),
    defaultPayloadConverter,
  );
  return resultAfterRetries(
    { name: 'search_orders', toolCallId: '1.1' },
    fromError(
      new ActivityFailure('Activity task failed', 'runTool', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', received),
    ),
  );
}

/** A crash of a `once` tool as the workflow records it once its single attempt failed. */
async function onceCrashed(): Promise<ToolResult> {
  const thrown = await run('search_orders', { customer_id: 'crash' }).then(
    () => new Error('expected a throw'),
    (err: unknown) => err as Error,
  );
  const received = defaultFailureConverter.failureToError(
    defaultFailureConverter.errorToFailure(thrown, defaultPayloadConverter),
    defaultPayloadConverter,
  );
  const cause = fromError(
    new ActivityFailure('Activity task failed', 'runTool', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', received),
  );
  return resultAfterRetries({ name: 'issue_refund', toolCallId: '1.1' }, cause, 'once');
}

/** A model client's reply whose tool-call arguments are an object, as the boundary check reports it. */
function malformedModelReply(): ToolResult {
  const outcome = checkModelOutcome({
    status: 'ok',
    response: { text: '', toolCalls: [{ name: 'search_orders', arguments: { customer_id: 'C-1' } }] },
  });
  if (outcome.status !== 'error') throw new Error('expected a malformed_model_output');
  return errorResult({ name: 'model', toolCallId: '3' }, outcome.error);
}

/** The code path that emits each code; `planner` marks rows emitted (and tested) by the planner. */
const PRODUCERS: Record<ToolErrorCode, (() => ToolResult | Promise<ToolResult>) | 'planner'> = {
  invalid_arguments: () => check('search_orders', '{"customer_id":"C-1","status":"shipping"}'),
  missing_fields: () => check('search_orders', '{"status":"placed"}'),
  unknown_tool: () => check('delete_orders', '{}'),
  malformed_arguments: () => check('search_orders', '{"customer_id": "C-1", "page": 2'),
  output_not_json: () => run('search_orders', { customer_id: 'truncated' }),
  output_schema_violation: () => run('search_orders', { customer_id: 'shipping' }),
  malformed_model_output: malformedModelReply,
  partial_data: () => run('search_orders', { customer_id: 'paged' }),
  semantic_error: () => run('search_orders', { customer_id: 'empty' }),
  validator_failed: () => run('find_book', { title: 'Dune Messiah' }),
  post_hook_error: () => run('find_book', { title: 'Dune' }),
  timeout: () => run('search_orders', { customer_id: 'slow' }),
  rate_limited: () => run('search_orders', { customer_id: 'busy' }),
  tool_unavailable: () => run('search_orders', { customer_id: 'down' }),
  internal_error: () => exhausted({ customer_id: 'crash' }),
  outcome_unknown: onceCrashed,
  rejected_by_human: 'planner',
  retry_budget_exceeded: 'planner',
  loop_detected: 'planner',
  tool_call_cap_exceeded: 'planner',
  too_many_calls: 'planner',
  cancelled: 'planner',
};

describe('failure taxonomy contract', () => {
  it('a plain throw from execute, once Temporal\'s retries are over, is an internal_error naming what it threw (docs/tools.md, "When execute throws")', async () => {
    const result = await exhausted({ customer_id: 'crash' });
    expect(result).toMatchObject({
      status: 'error',
      error: {
        code: 'internal_error',
        message: `search_orders threw: Cannot read properties of undefined (reading 'rows')`,
      },
    });
    // The model is told, the tool stays in its list: only ToolFailure.unavailable disables a tool.
    expect(HINT_ACTIONS[failureReason(result)!]).toBe('inform');
  });

  it('has a producer for every code, and only policy rows are left to the planner', () => {
    expect(Object.keys(PRODUCERS).sort()).toEqual([...TOOL_ERROR_CODES].sort());
    const planner = TOOL_ERROR_CODES.filter((code) => PRODUCERS[code] === 'planner');
    expect(planner).toEqual(TOOL_ERROR_CODES.filter((code) => FAILURES[code].kind === 'policy'));
  });

  it.each(TOOL_ERROR_CODES.filter((code) => PRODUCERS[code] !== 'planner'))(
    '%s comes out of its real code path',
    async (code) => {
      const produce = PRODUCERS[code] as () => ToolResult | Promise<ToolResult>;
      const result = await produce();
      expect(failureCode(result)).toBe(code);
      expect(failureReason(result)).toBe(FAILURES[code].reason);
      if (result.status === 'error') {
        expect(result.error.kind).toBe(FAILURES[code].kind);
        if (result.retryHint) expect(result.retryHint.reason).toBe(FAILURES[code].reason);
      }
      const view = toModelView(result) as { error: { code: string; kind: string } };
      expect(view.error).toMatchObject({ code, kind: FAILURES[code].kind });
      expect(JSON.parse(JSON.stringify(result))).toStrictEqual(result);
    },
  );
});

describe('docs match the table', () => {
  const docs = (file: string) => readFileSync(join(import.meta.dirname, '..', 'docs', file), 'utf8');

  it('docs/failure-taxonomy.md has one row per code with its kind, reason and planner action', () => {
    // The tool failure table only: "How a run ends" has a table of run end codes of the same shape.
    const rows = (docs('failure-taxonomy.md').split('\n## The table')[1] ?? '')
      .split('\n## ')[0]!
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim().replace(/`/g, '')));
    expect(rows.map((cells) => cells[1])).toEqual(TOOL_ERROR_CODES);
    for (const cells of rows) {
      const code = cells[1] as ToolErrorCode;
      expect(cells.slice(2, 4), code).toEqual([FAILURES[code].kind, FAILURES[code].reason]);
      expect(cells[4]!.split(' ')[0], code).toBe(HINT_ACTIONS[FAILURES[code].reason]);
    }
  });

  it('docs/failure-taxonomy.md lists the run end codes in order, and says which fail the run', () => {
    const section = docs('failure-taxonomy.md').split('\n## How a run ends')[1] ?? '';
    const rows = [...section.matchAll(/^\| \*\*`([a-z_]+)`\*\* \| ([^|]+) \|/gm)].map(([, code, run]) => [code!, run!]);
    expect(rows.map(([code]) => code)).toEqual(RUN_END_CODES);
    expect(rows.filter(([, run]) => run?.includes('fails')).map(([code]) => code)).toEqual(FAILING_END_CODES);
  });

  it('docs/model-view.md shows an example for every code, the real output where the code is ours', async () => {
    const sections = new Map(
      [...docs('model-view.md').matchAll(/^## `([a-z_]+)`\n[\s\S]*?```json\n([\s\S]*?)\n```/gm)].map((m) => [
        m[1]!,
        JSON.parse(m[2]!) as unknown,
      ]),
    );
    expect([...sections.keys()]).toEqual(TOOL_ERROR_CODES);
    for (const code of TOOL_ERROR_CODES) {
      expect(sections.get(code), code).toMatchObject({ error: { code, kind: FAILURES[code].kind } });
      const produce = PRODUCERS[code];
      if (produce !== 'planner') expect(sections.get(code), code).toStrictEqual(toModelView(await produce()));
    }
  });
});
