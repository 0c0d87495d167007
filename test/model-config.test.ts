/**
 * A model that cannot be used ends the run as failed, on the real dev server: a missing API key,
 * an unknown provider and a scripted model out of steps each fail the run at once with the
 * provider's message and what it needs — in the client's error (structured), the run's state, its
 * event stream, `cairn show`'s outcome and the workflow's failure (what the Temporal UI shows).
 * Never "done" with a generic answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnClient, type AgentRunHandle } from '../entry/client.js';
import { scriptStep } from '../entry/testing.js';
import { closedOutcome } from '../cli/run-client.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let runs: CairnClient;
beforeAll(async () => {
  // No keys at all, whatever the machine running the tests has.
  w = await startTestWorker({ modelEnv: {} });
  runs = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
});
afterAll(() => w?.stop());

/** Checks every place a person or a program reads how `run` ended; returns the failure's message. */
async function failedWith(run: AgentRunHandle, type: string, needs: string[], says: string): Promise<void> {
  const failure = await run.result().then(
    (result) => expect.unreachable(`the run finished: ${JSON.stringify(result)}`),
    (error: unknown) =>
      error as { name: string; cause: { type: string; message: string; nonRetryable: boolean; details: unknown[] } },
  );
  expect(failure.name).toBe('WorkflowFailedError');
  expect(failure.cause).toMatchObject({ type, nonRetryable: true, message: expect.stringContaining(says) });
  expect(failure.cause.details[0]).toMatchObject({ model: expect.any(String), needs });
  // The workflow's own failure, as the Temporal UI shows it.
  const { status } = await run.workflow.describe();
  expect(status.name).toBe('FAILED');
  // The run's state (`cairn show`, Queries) says why too, and has no answer.
  const state = await run.state();
  expect(state.failure).toMatchObject({ type, message: expect.stringContaining(says) });
  expect(state.answer).toBeNull();
  expect(await closedOutcome(run)).toMatchObject({ status: 'failed', failure: expect.stringContaining(says) });
  // The event stream (`cairn watch`) ends with the failure, not with a finish.
  const seen: string[] = [];
  const watched = (async () => {
    for await (const event of run.events()) seen.push(event.type);
  })();
  await expect(watched).rejects.toMatchObject({
    name: 'WorkflowFailedError',
    cause: { type, message: expect.stringContaining(says) },
  });
  expect(seen).not.toContain('finish');
}

describe('a model that cannot be used', () => {
  it('fails the run naming the missing API key (openai: without OPENAI_API_KEY)', async () => {
    const run = await runs.start({ agent: 'test', prompt: 'hello', model: 'openai:gpt-4.1-mini' });
    await failedWith(run, 'model_misconfigured', ['OPENAI_API_KEY'], 'needs OPENAI_API_KEY in the environment');
  });

  it('fails the run naming an unknown provider and the accepted forms (--model foo:bar)', async () => {
    const run = await runs.start({ agent: 'test', prompt: 'hello', model: 'foo:bar' });
    await failedWith(run, 'model_misconfigured', [], 'Unknown model provider "foo"');
  });

  it('fails the run when a scripted model runs out of steps', async () => {
    const { model } = w.script([scriptStep.call('lookup_order', { orderId: 'A-1' })]);
    const run = await runs.start({ agent: 'test', prompt: 'Where is A-1?', model });
    await failedWith(run, 'ScriptExhaustedError', [], 'has no step 1');
  });
});
