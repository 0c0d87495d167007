import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { Recording } from '../../shared/eval/recording.js';
import { argsHash } from '../../shared/identity/hash.js';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import { testAgent } from '../../test/fixtures/agents.js';
import { inertActivities, recordedModelActivity, recordedToolActivity } from './eval-activities.js';
import { LaneRegistry, LaneRun } from './lane-run.js';
import type { ToolActivities } from '../../activities/tool-activity.js';
import { workspaceTools } from '../../shared/workspace/workspace-tools.js';

const TOOLS = new Map(testAgent.tools.map((tool) => [tool.name, tool]));
const ok = (text: string): ModelOutcome => ({ status: 'ok', response: { text, toolCalls: [], finishReason: 'stop' } });

const recording = (over: Partial<Recording> = {}): Recording => ({
  agent: 'test',
  prompt: 'p',
  input: { agent: 'test', prompt: 'p' },
  modelTurns: [{ outcome: ok('recorded') as never, toolChoice: 'auto', toolNames: [] }],
  toolRuns: [
    {
      name: 'lookup_order',
      toolCallId: '1.1',
      args: { orderId: 'A-1' },
      argsHash: argsHash({ orderId: 'A-1' }),
      result: { status: 'ok', name: 'lookup_order', toolCallId: '1.1', result: { id: 'A-1' } },
    },
  ],
  answers: [],
  reviews: [],
  budgets: [],
  backOffs: 0,
  end: { status: 'completed' },
  durationMs: 0,
  ...over,
});

/** Runs `fn` as an activity of workflow `workflowId`. */
const asActivityOf = <T>(workflowId: string, fn: () => Promise<T>): Promise<T> =>
  new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'r' } }).run(fn);

describe('workspace tools in an evaluation', () => {
  const workspace = new Map(workspaceTools().map((tool) => [tool.name, tool]));
  const recorded = recording({
    toolRuns: [
      {
        name: 'write_file',
        toolCallId: '1.1',
        args: { path: 'a.txt', content: 'x' },
        argsHash: argsHash({ path: 'a.txt', content: 'x' }),
        result: { status: 'ok', name: 'write_file', toolCallId: '1.1', result: { path: 'a.txt', bytes: 1 } },
      },
    ],
  });

  it('run live in `live` mode, even a call the recording has, so the lane works on its own chain of snapshots', () => {
    const lane = new LaneRun('c', 'candidate', recorded, 'live', workspace);
    expect(lane.serve('write_file', { path: 'a.txt', content: 'x' }, 0).served).toEqual({
      how: 'live',
      tool: 'write_file',
    });
    expect(lane.serve('run_command', { command: 'make' }, 0).served).toEqual({ how: 'live', tool: 'run_command' });
  });

  it('are served from the recording otherwise, and never run', () => {
    const lane = new LaneRun('c', 'candidate', recorded, 'lenient', workspace);
    expect(lane.serve('write_file', { path: 'a.txt', content: 'x' }, 0).served.how).toBe('recorded');
    expect(lane.serve('run_command', { command: 'make' }, 0).served.how).not.toBe('live');
  });
});

describe('the evaluation activities', () => {
  it('serve the recorded model turns in order, call the real model for a run with no recording, and fail at once past the recording', async () => {
    const runs = new LaneRegistry(new Map());
    runs.set('recorded', new LaneRun('c', 'baseline', recording(), 'strict', TOOLS));
    runs.set('dataset', new LaneRun('d', 'baseline', undefined, 'strict', TOOLS));
    const { callModel } = recordedModelActivity(runs, async () => ok('live'));
    expect(await asActivityOf('recorded', () => callModel(undefined as never))).toEqual(ok('recorded'));
    await expect(asActivityOf('recorded', () => callModel(undefined as never))).rejects.toMatchObject({
      type: 'eval_recording_exhausted',
      nonRetryable: true,
      message: expect.stringMatching(/has 1 model turn\(s\) and the run asked for one more/),
    });
    expect(runs.get('recorded')!.drift).toHaveLength(1);
    expect(await asActivityOf('dataset', () => callModel(undefined as never))).toEqual(ok('live'));
    await expect(asActivityOf('unknown', () => callModel(undefined as never))).rejects.toMatchObject({
      message: 'This evaluation has no recording for this run.',
    });
  });

  it('serve tools from the recording, under the call id the run gave, and never run a tool with side effects', async () => {
    const runs = new LaneRegistry(new Map());
    const lane = new LaneRun('c', 'candidate', recording(), 'live', TOOLS);
    runs.set('run', lane);
    const ran: string[] = [];
    const live: Pick<ToolActivities, 'runTool'> = {
      runTool: async (input) => (
        ran.push(input.name), { status: 'ok', name: input.name, toolCallId: input.toolCallId, result: 'live' } as never
      ),
    };
    const { runTool } = recordedToolActivity(runs, live);
    const call = (name: string, args: Record<string, unknown>) =>
      asActivityOf('run', () => runTool({ name, toolCallId: '7.1', args: args as never }));
    expect(await call('lookup_order', { orderId: 'A-1' })).toMatchObject({ toolCallId: '7.1', result: { id: 'A-1' } });
    expect(await call('lookup_order', { orderId: 'A-2' })).toMatchObject({ result: 'live' });
    expect(await call('issue_refund', { orderId: 'A-1', amount: 5 })).toMatchObject({
      status: 'error',
      error: {
        code: 'tool_unavailable',
        message: expect.stringMatching(/issue_refund has side effects: an evaluation never runs it/),
      },
    });
    expect(ran).toEqual(['lookup_order']);
    expect(lane.served.map((s) => s.how)).toEqual(['recorded', 'live', 'refused']);
    // A child run of the lane's run (an agent tool) is the lane's too, with nothing recorded for it here.
    expect(runs.get('run/2.1')).toMatchObject({ caseId: 'c', lane: 'candidate', recording: undefined });
    runs.delete('run');
    expect(runs.get('run/2.1')).toBeUndefined();
    expect(await inertActivities.reconcileTool({ toolCallId: '1.1' } as never)).toMatchObject({
      toolCallId: '1.1',
      unknown: expect.any(String),
    });
  });
});
