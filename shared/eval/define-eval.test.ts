import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../agent/define-agent.js';
import { defineTool } from '../tools/define-tool.js';
import { candidateAgent, defineEval, evalLaneAgents } from './define-eval.js';

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
