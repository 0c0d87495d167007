import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { defineTool } from '../shared/tools/define-tool.js';
import { createToolActivities } from './tool-activity.js';

/** A client whose heartbeat answers are scripted: `answers` in order, the last one repeated. */
function serverAnswering(...answers: (object | { code: number })[]): { client: Client; asked: () => number } {
  let asked = 0;
  const recordActivityTaskHeartbeat = async () => {
    const answer = answers[Math.min(asked++, answers.length - 1)]!;
    if ('code' in answer) throw Object.assign(new Error('grpc'), answer);
    return answer;
  };
  const client = {
    workflowService: { recordActivityTaskHeartbeat },
    withAbortSignal: <T>(_signal: AbortSignal, fn: () => Promise<T>) => fn(),
  };
  return { client: client as unknown as Client, asked: () => asked };
}

const effects: string[] = [];
const pay = defineTool({
  name: 'pay',
  description: 'Pay.',
  input: z.object({ amount: z.number() }),
  sideEffects: 'once',
  execute: ({ amount }, { signal }) => (signal.throwIfAborted(), effects.push(`paid ${amount}`), { paid: amount }),
});
const input = { name: 'pay', toolCallId: '1.1', args: { amount: 5 }, idempotencyKey: 'wf/pay#h/1' };
const run = (client: Client) =>
  new MockActivityEnvironment(
    { workflowExecution: { workflowId: 'wf', runId: 'r' } },
    { logger: new DefaultLogger('ERROR'), client },
  ).run(createToolActivities([pay]).runTool, input);

describe('the attempt fence before a once tool runs', () => {
  it('runs the tool when the server confirms the attempt', async () => {
    effects.length = 0;
    const server = serverAnswering({ cancelRequested: false });
    expect(await run(server.client)).toMatchObject({ status: 'ok', result: { paid: 5 } });
    expect(effects).toEqual(['paid 5']);
    expect(server.asked()).toBe(1);
  });

  it('does not run it once the server no longer knows the attempt (timed out, taken over)', async () => {
    effects.length = 0;
    await expect(run(serverAnswering({ code: 5 }).client)).rejects.toMatchObject({
      name: 'CancelledFailure',
      message: expect.stringMatching(/timed out/),
    });
    expect(effects).toEqual([]);
  });

  it('asks an unreachable server again until it answers', async () => {
    effects.length = 0;
    const server = serverAnswering({ code: 14 }, { code: 14 }, { cancelRequested: false });
    expect(await run(server.client)).toMatchObject({ status: 'ok' });
    expect(server.asked()).toBe(3);
    expect(effects).toEqual(['paid 5']);
  });
});
