import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../agent/define-agent.js';
import { defineTool } from '../tools/define-tool.js';
import {
  candidateAgent,
  contains,
  defineEval,
  evalLaneAgents,
  exact,
  isEvalDefinition,
  judge,
  matchesSchema,
  scorer,
} from './define-eval.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Look up.',
  input: z.object({ id: z.string() }),
  execute: () => ({}),
});
const refund = defineTool({
  name: 'refund',
  description: 'Refund.',
  input: z.object({ id: z.string() }),
  execute: () => ({}),
});
const agent = defineAgent({ name: 'shop', instructions: 'Help.', tools: [lookup, refund] });

describe('defineEval', () => {
  it('refuses an evaluation without cases, with a bad mode or duplicate dataset ids', () => {
    expect(() => defineEval({ agent, candidate: {}, cases: {} })).toThrow(/cases/);
    expect(() => defineEval({ agent, candidate: {}, cases: { query: 'x' }, tools: 'wild' as never })).toThrow(
      /strict, lenient, live/,
    );
    expect(() =>
      defineEval({
        agent,
        candidate: {},
        cases: {
          dataset: [
            { id: 'a', prompt: 'p' },
            { id: 'a', prompt: 'q' },
          ],
        },
      }),
    ).toThrow(/two dataset cases have the id "a"/);
    expect(() => defineEval({ agent, candidate: { tools: { lookup: refund } }, cases: { query: 'x' } })).toThrow(
      /candidate.tools.lookup is a tool named "refund"/,
    );
  });

  it('makes the candidate agent: same name, its instructions, tools replaced, added and removed', () => {
    const lookup2 = defineTool({
      name: 'lookup',
      description: 'Look up v2.',
      input: z.object({ id: z.string() }),
      execute: () => ({}),
    });
    const made = candidateAgent(agent, { instructions: 'Be brief.', tools: { lookup: lookup2, refund: null } });
    expect(made.name).toBe('shop');
    expect(made.instructions).toBe('Be brief.');
    expect(made.tools).toEqual([lookup2]);
    // Model and policy go into the run input, not the agent.
    expect(candidateAgent(agent, { model: 'scripted:x', policy: { maxTurns: 2 } })).toBe(agent);
  });

  it("gives each lane's bundle its agent, and names a module without an eval", () => {
    const definition = defineEval({ agent, candidate: { instructions: 'New.' }, cases: { query: 'x' } });
    expect(evalLaneAgents({ default: definition }, 'baseline')).toEqual([agent]);
    expect(evalLaneAgents({ other: definition }, 'candidate', 'other')[0]!.instructions).toBe('New.');
    expect(() => evalLaneAgents({ default: {} }, 'baseline')).toThrow(/not a defineEval value/);
  });
});

describe('scorers', () => {
  it('are named for what they check, with the pass mark given', () => {
    const schema = z.object({});
    const fn = () => 1;
    expect([exact(), exact({ name: 'same' })]).toEqual([
      { kind: 'exact', name: 'exact' },
      { kind: 'exact', name: 'same' },
    ]);
    expect(contains('A-7')).toEqual({ kind: 'contains', name: 'contains "A-7"', text: 'A-7' });
    expect(contains('x', { name: 'has x' }).name).toBe('has x');
    expect(matchesSchema(schema)).toEqual({ kind: 'schema', name: 'schema', schema });
    expect(matchesSchema(schema, { name: 'json' }).name).toBe('json');
    expect(scorer('mine', fn, { pass: 0.5 })).toEqual({ kind: 'function', name: 'mine', fn, pass: 0.5 });
    expect(judge('m:x', 'be kind')).toEqual({ kind: 'judge', name: 'judge', model: 'm:x', rubric: 'be kind' });
    expect(judge('m:x', 'be kind', { name: 'kind', pass: 0.7 })).toMatchObject({ name: 'kind', pass: 0.7 });
  });

  it('marks an evaluation as one, and nothing else', () => {
    expect(isEvalDefinition(defineEval({ agent, candidate: {}, cases: { query: 'x' } }))).toBe(true);
    expect(isEvalDefinition({ agent, candidate: {}, cases: {} })).toBe(false);
    expect(isEvalDefinition(null)).toBe(false);
    expect(() => defineEval(null as never)).toThrow(/give it \{ agent, candidate, cases \}/);
    expect(() => defineEval({ agent: {} as never, candidate: {}, cases: { query: 'x' } })).toThrow(/defineAgent value/);
    expect(() => defineEval({ agent, candidate: undefined as never, cases: { query: 'x' } })).toThrow(
      /say what changes/,
    );
    expect(() => defineEval({ agent, candidate: {}, cases: { dataset: [{ id: '', prompt: 'p' }] } })).toThrow(
      /an `id` and a `prompt`/,
    );
    expect(() => defineEval({ agent, candidate: {}, cases: { dataset: [{ id: 'a', prompt: ' ' }] } })).toThrow(
      /an `id` and a `prompt`/,
    );
    expect(defineEval({ agent, candidate: {}, cases: { histories: ['x'] }, tools: 'live' }).tools).toBe('live');
  });
});
