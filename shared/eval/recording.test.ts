import { describe, expect, it } from 'vitest';
import { argsHash } from '../identity/hash.js';
import type { JsonObject } from '../json/json.js';
import { recordingOf, type EvalEvent } from './recording.js';

const start = (input: unknown = { agent: 'shop', prompt: 'refund A-1', model: 'm' }): EvalEvent => ({
  type: 'started',
  workflowType: 'agentRun',
  input: input as never,
  time: 1_000,
});
const closed: EvalEvent = { type: 'closed', status: 'completed', result: { answer: 'Done.' }, time: 3_500 };

describe('recordingOf', () => {
  it('reads model turns, tool runs with their hashes, people and back-offs in order', () => {
    const response: JsonObject = {
      toolCalls: [
        { id: 'c0', name: 'refund', arguments: '{"id":"A-1"}' },
        { id: 'c1', name: 'lookup' },
      ],
    };
    const recording = recordingOf([
      start(),
      {
        type: 'activity_scheduled',
        id: 5,
        activityType: 'callModel',
        input: { toolChoice: { tool: 'refund' }, toolNames: ['refund', 7] },
      },
      { type: 'activity_completed', scheduledId: 5, result: { status: 'ok', response } },
      {
        type: 'update_accepted',
        name: 'reviewToolCall',
        args: { toolCallId: '1.1', argsHash: 'h1', decision: { type: 'accept' } },
      },
      { type: 'signaled', name: 'reviewToolCall', args: { toolCallId: '1.2', argsHash: 'h2' } },
      {
        type: 'signaled',
        name: 'reviewToolCall',
        args: { toolCallId: '9.9', argsHash: 'h3', decision: { type: 'reject' } },
      },
      {
        type: 'activity_scheduled',
        id: 9,
        activityType: 'runTool',
        input: { name: 'refund', toolCallId: '1.1', args: { id: 'A-1' } },
      },
      { type: 'activity_scheduled', id: 10, activityType: 'runTool', input: { name: 'lookup', toolCallId: '1.2' } },
      { type: 'activity_scheduled', id: 11, activityType: 'reconcileTool', input: { name: 'refund' } },
      { type: 'activity_completed', scheduledId: 11, result: {} },
      { type: 'activity_completed', scheduledId: 10, result: { status: 'ok', result: 1 } },
      { type: 'activity_completed', scheduledId: 9, result: { status: 'ok', result: 2 } },
      { type: 'activity_completed', scheduledId: 99, result: null },
      { type: 'timer_started' },
      { type: 'timer_started' },
      { type: 'update_accepted', name: 'answerClarification', args: { id: 'q1', answer: 'yes' } },
      { type: 'signaled', name: 'answerClarification', args: { id: 'q2' } },
      { type: 'update_accepted', name: 'extendBudget', args: { id: 'b1', decision: { type: 'stop' } } },
      { type: 'update_accepted', name: 'extendBudget', args: { decision: { type: 'stop' } } },
      { type: 'update_accepted', name: 'untilIdle', args: { id: 'q3', answer: 'no' } },
      { type: 'signaled', name: 'cancel', args: 'stop' },
      closed,
    ]);
    expect(recording).toMatchObject({
      agent: 'shop',
      prompt: 'refund A-1',
      input: { model: 'm' },
      backOffs: 2,
      answers: [{ id: 'q1', answer: 'yes' }],
      budgets: [{ id: 'b1', decision: { type: 'stop' } }],
      end: { status: 'completed', result: { answer: 'Done.' } },
      durationMs: 2_500,
    });
    expect(recording.modelTurns).toEqual([
      { outcome: { status: 'ok', response }, toolChoice: { tool: 'refund' }, toolNames: ['refund'] },
    ]);
    expect(recording.toolRuns).toEqual([
      { name: 'lookup', toolCallId: '1.2', args: null, argsHash: argsHash(null), result: { status: 'ok', result: 1 } },
      {
        name: 'refund',
        toolCallId: '1.1',
        args: { id: 'A-1' },
        argsHash: argsHash({ id: 'A-1' }),
        result: { status: 'ok', result: 2 },
      },
    ]);
    expect(recording.reviews).toEqual([
      { toolCallId: '1.1', argsHash: 'h1', name: 'refund', decision: { type: 'accept' } },
      { toolCallId: '1.2', argsHash: 'h2', name: 'lookup', decision: null },
      { toolCallId: '9.9', argsHash: 'h3', decision: { type: 'reject' } },
    ]);
  });

  it('takes a model turn without tool names or choice as offering none, by auto', () => {
    const recording = recordingOf([
      start(),
      { type: 'activity_scheduled', id: 5, activityType: 'callModel', input: {} },
      { type: 'activity_completed', scheduledId: 5, result: { status: 'error' } },
      closed,
    ]);
    expect(recording.modelTurns).toEqual([{ outcome: { status: 'error' }, toolChoice: 'auto', toolNames: [] }]);
  });

  it('says why a history is not a closed agent run', () => {
    expect(() => recordingOf([])).toThrow(expect.objectContaining({ code: 'not_an_agent_run' }));
    expect(() => recordingOf([closed])).toThrow(/does not start with a workflow start/);
    expect(() => recordingOf([start({ agent: 'shop' }), closed])).toThrow(
      /its workflow \("agentRun"\) was started without an agent and a prompt/,
    );
    expect(() => recordingOf([start('text'), closed])).toThrow(expect.objectContaining({ code: 'not_an_agent_run' }));
    expect(() => recordingOf([start()])).toThrow(expect.objectContaining({ code: 'still_running' }));
    const failed = recordingOf([start(), { type: 'closed', status: 'failed', failure: 'boom', time: 500 }]);
    expect(failed).toMatchObject({ end: { status: 'failed', failure: 'boom' }, durationMs: 0 });
    expect(failed.end).not.toHaveProperty('result');
  });
});
