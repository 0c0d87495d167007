/** What the step log and the Temporal UI say of a run's steps. */
import { describe, expect, it } from 'vitest';
import { start } from '../planner/testing.js';
import { describeStep } from './run-details.js';

const { state } = start();

describe('describeStep', () => {
  it("names a model's end once: its reason already starts with the code", () => {
    const message = 'openai-compatible needs OPENAI_BASE_URL in the environment';
    const step = {
      type: 'finish' as const,
      answer: `The run ended: ${message}`,
      reason: `model_misconfigured: ${message}`,
      end: { code: 'model_misconfigured' as const, message, fail: true },
    };
    expect(describeStep(step, state).detail).toBe(`model_misconfigured: ${message}`);
  });

  it('prefixes the code to a reason that does not name it, and says when the model answered', () => {
    const capped = { type: 'finish' as const, answer: 'partial', reason: 'the run reached maxTurns (8)' };
    expect(describeStep(capped, state).detail).toBe('limit_reached: the run reached maxTurns (8)');
    expect(describeStep({ type: 'finish', answer: 'done', reason: null }, state).detail).toBe('the model answered');
  });
});
