import { describe, expect, it } from 'vitest';
import { endingLine, endingOf, EXIT_WAITING_ON_PERSON } from './run-outcome.js';

describe('endingOf: what a completed run came to', () => {
  it('an outcome says it: answered, or ended with a code and a message', () => {
    expect(endingOf({ answer: 'Done.', reason: null, outcome: { status: 'answered' } })).toEqual({ answered: true });
    const ended = endingOf({
      answer: '',
      reason: 'model unavailable',
      outcome: { status: 'ended', code: 'model_unavailable', message: 'openai answered 401' },
    });
    expect(ended).toEqual({ answered: false, code: 'model_unavailable', message: 'openai answered 401' });
    expect(endingLine(ended as Extract<typeof ended, { answered: false }>)).toBe(
      'The run ended without its answer (model_unavailable): openai answered 401',
    );
  });

  it('a run recorded before outcomes: no reason is an answer, a reason is an early end', () => {
    expect(endingOf({ answer: 'Done.', reason: null })).toEqual({ answered: true });
    expect(endingOf({ answer: '', reason: 'maxTurns reached' })).toEqual({
      answered: false,
      code: 'ended_early',
      message: 'maxTurns reached',
    });
  });

  it('a malformed outcome is read defensively', () => {
    expect(endingOf({ reason: null, outcome: { status: 'ended', code: 7 } })).toEqual({
      answered: false,
      code: 'ended',
      message: '',
    });
    expect(endingOf(undefined)).toEqual({ answered: true });
  });

  it('waiting on a person is its own exit code, documented in docs/cli.md', () => {
    expect(EXIT_WAITING_ON_PERSON).toBe(3);
  });
});
