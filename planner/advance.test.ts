/** advance: the one reducer a driver calls after each step (the workflow and `drive` alike). */
import { describe, expect, it } from 'vitest';
import { advance } from './advance.js';
import { drive, failed, ok, PLAIN_TOOLS, rawCall, start, textReply, TIMEOUT, toolCallsReply } from './testing.js';

describe('advance', () => {
  it('a clarification nobody answers in time: the model goes on without the answer', () => {
    const trace = drive({
      policy: { onClarificationTimeout: 'continue' },
      model: [toolCallsReply([rawCall('lookup', {})]), textReply('I could not find the order without its number.')],
      tool: (c) => failed(c, 'missing_fields', { clarifyingQuestion: 'Which order?' }),
      answer: () => TIMEOUT,
    });
    expect(trace.notes).toContain(
      'Nobody answered "Which order?" in time. Continue without it, or say what you cannot do.',
    );
    expect(trace.last.step).toMatchObject({ type: 'finish', answer: 'I could not find the order without its number.' });
  });

  it('after a pause the same step is taken again, and the model is told nothing', () => {
    const plan = start();
    const held = advance(
      plan.state,
      plan.step,
      { type: 'resumed', pausedMs: 5_000 },
      { now: 5_000, toolbox: PLAIN_TOOLS },
    );
    expect(held).toEqual({ state: { ...plan.state, humanWaitMs: 5_000 }, step: plan.step, record: [], notes: [] });
  });

  it("keeps the run's workspace snapshot a batch's workspace calls left, and carries it through later steps", () => {
    const plan = start();
    const call = { toolCallId: '1.1', name: 'lookup', args: {} };
    const calling = advance(
      plan.state,
      plan.step,
      { type: 'model_outcome', outcome: toolCallsReply([rawCall('lookup', {})]) },
      { now: 0, toolbox: PLAIN_TOOLS },
    );
    expect(calling.step.type).toBe('execute_tools');
    const digest = `sha256:${'a'.repeat(64)}`;
    const after = advance(
      calling.state,
      calling.step,
      { type: 'tool_results', results: [ok(call)], workspace: digest },
      { now: 1, toolbox: PLAIN_TOOLS },
    );
    expect(after.state.workspace).toBe(digest);
    const next = advance(
      after.state,
      after.step,
      { type: 'model_outcome', outcome: toolCallsReply([rawCall('lookup', { again: true })]) },
      { now: 2, toolbox: PLAIN_TOOLS },
    );
    expect(next.state.workspace).toBe(digest);
    // A batch with no workspace call leaves it as it was.
    const unchanged = advance(
      next.state,
      next.step,
      { type: 'tool_results', results: [ok({ ...call, toolCallId: '2.1' })] },
      { now: 3, toolbox: PLAIN_TOOLS },
    );
    expect(unchanged.state.workspace).toBe(digest);
  });

  it('a happening the step cannot have is a driver bug, not a decision', () => {
    const plan = start();
    const call = { toolCallId: '1.1', name: 'lookup', args: {} };
    expect(() =>
      advance(plan.state, plan.step, { type: 'tool_results', results: [ok(call)] }, { now: 0, toolbox: PLAIN_TOOLS }),
    ).toThrow('advance: "tool_results" cannot happen during "call_model" (driver bug)');
  });
});
