import { describe, expect, it } from 'vitest';
import { modelTurnAction, STEP_ACTIONS } from './step-action.js';

describe('modelTurnAction', () => {
  it('names the final turn, a repair restricted to one tool, and a plain turn', () => {
    expect(modelTurnAction(true, 'none')).toBe('final');
    expect(modelTurnAction(true, { tool: 'lookup' })).toBe('final');
    expect(modelTurnAction(false, { tool: 'lookup' })).toBe('repair');
    expect(modelTurnAction(false, 'auto')).toBe('model');
    expect(modelTurnAction(false, undefined)).toBe('model');
  });

  it('names only listed actions', () => {
    for (const action of [
      modelTurnAction(true, 'none'),
      modelTurnAction(false, { tool: 'x' }),
      modelTurnAction(false, 'auto'),
    ])
      expect(STEP_ACTIONS).toContain(action);
  });
});
