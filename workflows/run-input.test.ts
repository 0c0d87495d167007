/** What a client may start a run with, checked before the run uses it. */
import { describe, expect, it } from 'vitest';
import { runInputProblem } from './run-input.js';

describe('runInputProblem', () => {
  it('accepts a plain input and one with every option', () => {
    expect(runInputProblem({ agent: 'orders', prompt: 'Where is A-1?' })).toBeUndefined();
    expect(
      runInputProblem({
        agent: 'orders',
        prompt: 'x',
        model: 'openai:gpt-4.1-mini',
        policy: { maxTurns: 4, backoff: { maxMs: 1_000 } },
        searchAttributes: true,
        continueAsNewAfterTurns: 10,
        workspace: { snapshot: `sha256:${'0'.repeat(64)}` },
      }),
    ).toBeUndefined();
  });

  it.each([
    ['no prompt', { agent: 'orders' }, '`prompt` is required'],
    [
      'a prompt that is not text',
      { agent: 'orders', prompt: { deep: [1] } },
      '`prompt` must be a string, not an object',
    ],
    ['a blank prompt', { agent: 'orders', prompt: '   ' }, '`prompt`'],
    ['an unknown key', { agent: 'orders', prompt: 'x', prompts: 'y' }, '`prompts` is not an accepted field'],
    [
      'a policy count as text',
      { agent: 'orders', prompt: 'x', policy: { maxTurns: '5' } },
      '`policy.maxTurns` must be a number',
    ],
    [
      'a negative back-off',
      { agent: 'orders', prompt: 'x', policy: { backoff: { initialMs: -1 } } },
      '`policy.backoff.initialMs` must be >= 0',
    ],
    [
      'an unknown policy field',
      { agent: 'orders', prompt: 'x', policy: { maxTurnz: 5 } },
      '`policy.maxTurnz` is not an accepted field',
    ],
    ['not an object at all', 'orders', 'must be an object'],
    [
      'a workspace snapshot that is not a digest',
      { agent: 'coder', prompt: 'x', workspace: { snapshot: '../../etc' } },
      '`workspace.snapshot`',
    ],
  ])('refuses %s, naming the field', (_name, input, expected) => {
    expect(runInputProblem(input)).toContain(expected);
  });
});
