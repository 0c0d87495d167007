import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  allowedDecisions,
  carriedBy,
  carriedFields,
  DECISION_HINT,
  isReviewDecisionType,
  parseFlatReviewDecision,
  parseReviewDecision,
  parseReviewRequest,
  reviewDecisionJsonSchema,
  REVIEW_DECISIONS,
  type ReviewDecision,
  type ReviewDecisionInput,
  type ReviewDecisionType,
} from './review-decision.js';

describe('the review-decision family', () => {
  it('has one variant per decision type, in each form', () => {
    expectTypeOf<ReviewDecisionInput['type']>().toEqualTypeOf<ReviewDecisionType>();
    expectTypeOf<ReviewDecision['type']>().toEqualTypeOf<(typeof REVIEW_DECISIONS)[number]>();
    // The planner's edit carries the hash of the arguments it checked; the sent one does not.
    expectTypeOf<Extract<ReviewDecision, { type: 'edit' }>>().toHaveProperty('argsHash');
    expectTypeOf<Extract<ReviewDecisionInput, { type: 'edit' }>>().not.toHaveProperty('argsHash');
  });

  it('knows its types and nothing else', () => {
    for (const type of REVIEW_DECISIONS) expect(isReviewDecisionType(type)).toBe(true);
    for (const other of ['Accept', 'approve', '', undefined, null, 1, { type: 'accept' }])
      expect(isReviewDecisionType(other)).toBe(false);
  });

  it('a review allows what its tool allows, or all four for one carried from before configs existed', () => {
    expect(allowedDecisions({ allowed: ['accept'] })).toEqual(['accept']);
    expect(allowedDecisions({})).toEqual(['accept', 'edit', 'respond', 'reject']);
  });

  it('one parser: what each decision carries, the first problem in words, nothing beside it kept', () => {
    expect(parseReviewDecision({ type: 'accept', note: 'x' })).toEqual({ ok: true, value: { type: 'accept' } });
    expect(parseReviewDecision({ type: 'edit', args: { amount: 40 }, argsHash: 'h' })).toEqual({
      ok: true,
      value: { type: 'edit', args: { amount: 40 } },
    });
    expect(parseReviewDecision({ type: 'respond', content: 0 })).toEqual({
      ok: true,
      value: { type: 'respond', content: 0 },
    });
    expect(parseReviewDecision({ type: 'reject', reason: '  too much  ' })).toEqual({
      ok: true,
      value: { type: 'reject', reason: 'too much' },
    });
    expect(parseReviewDecision({ type: 'reject', reason: '   ' })).toEqual({ ok: true, value: { type: 'reject' } });
    const refused = (value: unknown) => {
      const parsed = parseReviewDecision(value);
      return parsed.ok ? 'taken' : parsed.message;
    };
    expect(refused({ type: 'edit' })).toMatch(/An edit carries the new arguments/);
    expect(refused({ type: 'respond', content: '' })).toMatch(/carries the result to give the model/);
    expect(refused({ type: 'reject', reason: 7 })).toMatch(/"reason" is text/);
    expect(refused({ type: 'approve' })).toMatch(/"accept" \| "edit" \| "respond" \| "reject"/);
    expect(refused('accept')).toMatch(/A decision is/);
    expect(refused(null)).toMatch(/A decision is/);
  });

  it("takes A2A's and MCP's flat form, and the nested one", () => {
    const beside = { toolCallId: '2.1', argsHash: 'h', args: { amount: 5 } };
    expect(parseFlatReviewDecision('edit', beside)).toEqual({ ok: true, value: { type: 'edit', args: { amount: 5 } } });
    expect(parseFlatReviewDecision({ type: 'accept' }, beside)).toEqual({ ok: true, value: { type: 'accept' } });
    expect(parseFlatReviewDecision('respond', beside).ok).toBe(false);
  });

  it("takes REST's body, { argsHash?, decision }, and nothing beside it", () => {
    expect(parseReviewRequest({ argsHash: 'h', decision: { type: 'edit', args: { a: 1 } }, extra: 1 })).toEqual({
      ok: true,
      value: { argsHash: 'h', decision: { type: 'edit', args: { a: 1 } } },
    });
    expect(parseReviewRequest({ decision: { type: 'accept' } })).toEqual({
      ok: true,
      value: { decision: { type: 'accept' } },
    });
    expect(parseReviewRequest({ argsHash: 3, decision: { type: 'accept' } })).toEqual({
      ok: false,
      message: '"argsHash" is text.',
    });
    expect(parseReviewRequest({ decision: { type: 'maybe' } })).toMatchObject({ ok: false, message: /A decision is/ });
    expect(parseReviewRequest({})).toMatchObject({ ok: false, message: /A decision is/ });
  });

  it('says what is wrong with a decision in words a person can act on', () => {
    const message = (value: unknown) => {
      const parsed = parseReviewDecision(value);
      return parsed.ok ? 'taken' : parsed.message;
    };
    expect(message({ type: 'reject', reason: 7 })).toBe('A rejection\'s "reason" is text.');
    expect(message({ type: 'edit', args: '' })).toBe(
      'An edit carries the new arguments: { "type": "edit", "args": … }.',
    );
    expect(message({ type: 'respond' })).toBe(
      'A respond carries the result to give the model: { "type": "respond", "content": … }.',
    );
    expect(message({ type: 'respond', content: 0 })).toBe('taken');
    expect(message({ type: 'edit', args: null })).toBe('taken');
    expect(parseReviewDecision({ type: 'reject', reason: ' no ' })).toEqual({
      ok: true,
      value: { type: 'reject', reason: 'no' },
    });
    expect(parseReviewDecision({ type: 'reject' })).toEqual({ ok: true, value: { type: 'reject' } });
    expect(parseFlatReviewDecision('maybe', {})).toEqual({
      ok: false,
      message: '"decision" is one of accept, edit, respond, reject, or { type, … }.',
    });
    expect(parseFlatReviewDecision(7, {})).toMatchObject({ ok: false, message: DECISION_HINT });
    expect(isReviewDecisionType('accept')).toBe(true);
    expect(isReviewDecisionType('toString')).toBe(false);
    expect(isReviewDecisionType(7)).toBe(false);
  });

  it('lists the carried fields once each, with the decision that carries it', () => {
    expect(carriedFields().map((f) => [f.by, f.field, f.value, f.required])).toEqual([
      ['edit', 'args', 'json', true],
      ['respond', 'content', 'json', true],
      ['reject', 'reason', 'text', false],
    ]);
  });

  it('derives the whole JSON Schema: a variant per allowed type, its field typed by the table or given', () => {
    expect(reviewDecisionJsonSchema(['accept', 'edit', 'respond', 'reject'], { args: { type: 'object' } })).toEqual({
      oneOf: [
        { type: 'object', properties: { type: { const: 'accept' } }, required: ['type'] },
        {
          type: 'object',
          properties: { type: { const: 'edit' }, args: { type: 'object' } },
          required: ['type', 'args'],
        },
        {
          type: 'object',
          properties: { type: { const: 'respond' }, content: { description: 'the result to give the model' } },
          required: ['type', 'content'],
        },
        {
          type: 'object',
          properties: { type: { const: 'reject' }, reason: { type: 'string', description: 'why not' } },
          required: ['type'],
        },
      ],
    });
  });

  it('derives the JSON Schema and the CLI argument from the same table', () => {
    const schema = reviewDecisionJsonSchema(['accept', 'edit']) as { oneOf: { required: string[] }[] };
    expect(schema.oneOf.map((s) => s.required)).toEqual([['type'], ['type', 'args']]);
    expect(carriedBy('accept')).toBeUndefined();
    expect(carriedBy('reject')).toMatchObject({ field: 'reason', value: 'text', required: false });
  });
});
