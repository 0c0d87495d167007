import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, needsApproval, toolSpec } from './define-tool.js';
import { Result, Validator, validator } from '../guards/validator.js';
import { DefinitionError, ReservedValidatorNameError } from '../failures/definition-error.js';

const base = {
  name: 'issue_refund',
  description: 'Refund an order.',
  input: z.object({
    orderId: z.string(),
    amount: z.number().positive(),
    reason: z.string().default('customer request'),
  }),
  execute: () => ({ refunded: true }),
};

describe('defineTool', () => {
  it('fills the defaults', () => {
    const tool = defineTool(base);
    expect(tool.sideEffects).toBe('none');
    expect(tool.approval).toBe('never');
    expect(tool.postHooks).toEqual([]);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('builds a spec of exactly name, description and args_schema (input side, no $schema)', () => {
    const hook = validator('refund_sane', () => Result.success());
    const tool = defineTool({
      ...base,
      postHook: hook,
      check: () => undefined,
      output: z.object({ refunded: z.boolean() }),
    });
    expect(Object.keys(tool.spec)).toEqual(['name', 'description', 'args_schema']);
    expect(toolSpec(tool)).toBe(tool.spec);
    expect(tool.spec.args_schema).not.toHaveProperty('$schema');
    expect(tool.spec.args_schema).toMatchObject({ type: 'object', required: ['orderId', 'amount'] });
    // Nothing of hooks, checks or execute leaks into what the model sees.
    const text = JSON.stringify(tool.spec);
    for (const hidden of ['refund_sane', 'postHook', 'check', 'execute', 'refunded'])
      expect(text).not.toContain(hidden);
  });

  it('normalises postHook to postHooks, in order, for both forms', () => {
    class Positive extends Validator<{ refunded: boolean }> {
      readonly name = 'positive';
      run() {
        return Result.success();
      }
    }
    const one = validator('first', () => Result.success());
    expect(defineTool({ ...base, postHook: one }).postHooks).toEqual([one]);
    const positive = new Positive();
    expect(defineTool({ ...base, postHook: [one, positive] }).postHooks).toEqual([one, positive]);
    expect(defineTool({ ...base, postHook: [one] })).not.toHaveProperty('postHook');
  });

  it('refuses a class-form validator with a reserved name when the tool is defined', () => {
    class Sneaky extends Validator {
      readonly name = 'output_schema';
      run() {
        return Result.success();
      }
    }
    expect(() => defineTool({ ...base, postHook: new Sneaky() })).toThrow(ReservedValidatorNameError);
  });

  it.each(['IssueRefund', 'issue-refund', 'issue refund', '_refund', 'refund_', 'a__b', '', 'x'.repeat(65)])(
    'refuses the tool name %j',
    (name) => {
      expect(() => defineTool({ ...base, name })).toThrow(expect.objectContaining({ code: 'invalid_tool_name' }));
    },
  );

  it('takes a name of exactly 64 characters and a description with spaces around it, trimmed for the model', () => {
    const tool = defineTool({ ...base, name: 'x'.repeat(64), description: '  Refund an order.  ' });
    expect(tool.spec).toMatchObject({ name: 'x'.repeat(64), description: 'Refund an order.' });
  });

  it.each([
    [
      'a long name',
      { name: 'x'.repeat(65) },
      `Tool name "${'x'.repeat(65)}" must be snake_case (a-z, 0-9, _), at most 64 characters.`,
    ],
    ['a name that is not text', { name: 7 }, 'Tool name 7 must be snake_case (a-z, 0-9, _), at most 64 characters.'],
    [
      'a missing description',
      { description: undefined },
      'Tool issue_refund needs a description: it is what the model reads.',
    ],
    [
      'a string input',
      { input: z.string() },
      'The input schema of issue_refund must be a z.object(...): tool arguments are a JSON object.',
    ],
    [
      'the fields without z.object',
      { input: { orderId: z.string() } },
      'The input schema of issue_refund must be a zod object schema, z.object({...}); got a plain object of fields (orderId): wrap it in z.object(...).',
    ],
    [
      'a JSON Schema',
      { input: { type: 'object', properties: { orderId: { type: 'string' } } } },
      'The input schema of issue_refund must be a zod object schema, z.object({...}); got a JSON Schema: write it with zod, or convert it with z.fromJSONSchema(...).',
    ],
    [
      'a zod 3 schema',
      { input: { _def: { typeName: 'ZodObject' }, safeParse: () => ({ success: true }) } },
      "The input schema of issue_refund must be a zod object schema, z.object({...}); got a zod 3 schema: define it with zod 4 (import { z } from 'zod', zod >= 4).",
    ],
    [
      'no input',
      { input: undefined },
      'The input schema of issue_refund must be a zod object schema, z.object({...}); got undefined: give the tool an input.',
    ],
    [
      'an array',
      { input: [z.string()] },
      'The input schema of issue_refund must be a zod object schema, z.object({...}); got an array.',
    ],
    [
      'an input with no JSON Schema form',
      { input: z.object({ at: z.date() }) },
      /^The input schema of issue_refund has no JSON Schema form: /,
    ],
    [
      'a second example that fails the schema',
      {
        examples: [
          { orderId: 'A-1', amount: 5 },
          { orderId: 'A-1', amount: -5 },
        ],
      },
      /^Example 2 of issue_refund fails its own input schema: `amount` /,
    ],
    [
      'an example that is not JSON',
      { input: z.object({ n: z.any() }), examples: [{ n: 1n }] },
      'Example 1 of issue_refund fails its own input schema: it is not a JSON object.',
    ],
  ])('refuses %s, saying what to change', (_label, change, message) => {
    let thrown: unknown;
    try {
      defineTool({ ...base, ...change } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DefinitionError);
    if (typeof message === 'string') expect((thrown as Error).message).toBe(message);
    else expect((thrown as Error).message).toMatch(message);
  });

  it('refuses an empty description, a non-object input, and an example that fails the schema', () => {
    expect(() => defineTool({ ...base, description: ' ' })).toThrow(
      expect.objectContaining({ code: 'invalid_tool_description' }),
    );
    expect(() => defineTool({ ...base, input: z.string() })).toThrow(
      expect.objectContaining({ code: 'invalid_input_schema' }),
    );
    expect(() => defineTool({ ...base, examples: [{ orderId: 'A-1', amount: -5 }] })).toThrow(
      expect.objectContaining({ code: 'invalid_example', message: expect.stringMatching(/^Example 1 of /) }),
    );
    // A schema JSON Schema cannot express is refused when the tool is defined, not when the model asks.
    expect(() => defineTool({ ...base, input: z.object({ at: z.date() }) })).toThrow(
      expect.objectContaining({
        code: 'invalid_input_schema',
        message: expect.stringMatching(/has no JSON Schema form/),
      }),
    );
    expect(() => defineTool({ ...base, postHook: [undefined as never] })).toThrow(
      expect.objectContaining({ code: 'invalid_validator_name' }),
    );
    expect(() => defineTool({ ...base, examples: [{ orderId: 'A-1', amount: 5 }] })).not.toThrow();
  });

  // In a workflow bundle (CAIRN_WORKFLOW_BUNDLE, set by runtime/workflow-bundle.ts) the module is
  // evaluated for every run, and the worker checked its tools when it imported them.
  it('in a workflow bundle, makes the JSON Schema when the spec is first read, and does not check the examples again', async () => {
    const flag = globalThis as { CAIRN_WORKFLOW_BUNDLE?: boolean };
    flag.CAIRN_WORKFLOW_BUNDLE = true;
    vi.resetModules();
    try {
      const bundled = await import('./define-tool.js');
      const noJsonSchema = bundled.defineTool({ ...base, input: z.object({ at: z.date() }) });
      expect(() => noJsonSchema.spec).toThrow(/has no JSON Schema form/);
      const tool = bundled.defineTool({ ...base, examples: [{ orderId: 'A-1' }] as never });
      expect(tool.spec).toBe(tool.spec);
      expect(tool.spec).toEqual(defineTool(base).spec);
      expect(Object.isFrozen(tool.spec)).toBe(true);
    } finally {
      delete flag.CAIRN_WORKFLOW_BUNDLE;
      vi.resetModules();
    }
  });
});

describe('needsApproval', () => {
  it('follows the rule', () => {
    expect(needsApproval(defineTool(base), { orderId: 'A', amount: 500 })).toBe(false);
    expect(needsApproval(defineTool({ ...base, approval: 'always' }), { orderId: 'A', amount: 1 })).toBe(true);
    const over50 = defineTool({ ...base, approval: (args) => args.amount > 50 });
    expect(needsApproval(over50, { orderId: 'A', amount: 20 })).toBe(false);
    expect(needsApproval(over50, { orderId: 'A', amount: 80 })).toBe(true);
  });

  it('asks a human when the rule itself throws', () => {
    const broken = defineTool({
      ...base,
      approval: () => {
        throw new Error('bug');
      },
    });
    expect(needsApproval(broken, {})).toBe(true);
  });
});

describe('defineTool: review config (seed 003)', () => {
  const base = {
    name: 'wire',
    description: 'Wire money.',
    input: z.object({ amount: z.number() }),
    approval: 'always' as const,
    execute: () => ({}),
  };

  it('keeps the allowed decisions and the description', () => {
    expect(
      defineTool({ ...base, review: { allow: ['accept', 'reject', 'accept'], description: ' Check the account. ' } })
        .review,
    ).toEqual({ allow: ['accept', 'reject'], description: 'Check the account.' });
    expect(defineTool(base).review).toBeUndefined();
  });

  it.each([
    ['no decision at all', { allow: [] }],
    ['an unknown decision', { allow: ['approve'] }],
    ['an empty description', { description: '  ' }],
    ['a description too long to travel with the run', { description: 'x'.repeat(1_001) }],
  ])('refuses %s', (_name, review) => {
    expect(() => defineTool({ ...base, review: review as never })).toThrow(
      expect.objectContaining({ code: 'invalid_review_config' }),
    );
  });
});

describe('reconcile', () => {
  const base = {
    name: 'pay',
    description: 'Pay.',
    input: z.object({ amount: z.number() }),
    execute: () => ({}),
    reconcile: () => ({ happened: false }) as const,
  };
  it('belongs to once tools only: the others are simply run again', () => {
    expect(defineTool({ ...base, sideEffects: 'once' }).reconcile).toBe(base.reconcile);
    expect(() => defineTool({ ...base, sideEffects: 'idempotent' })).toThrow(
      expect.objectContaining({ code: 'invalid_reconcile' }),
    );
    expect(() => defineTool({ ...base })).toThrow(expect.objectContaining({ code: 'invalid_reconcile' }));
    expect(() => defineTool({ ...base, sideEffects: 'once', reconcile: 'check the ledger' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_reconcile', message: expect.stringMatching(/only a function/) }),
    );
  });
});
