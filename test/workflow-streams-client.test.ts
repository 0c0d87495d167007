/**
 * Temporal's own Workflow Streams client (`@temporalio/workflow-streams` 1.23.0, which pins its
 * own `@temporalio/client`, so it lives in test/fixtures/workflow-streams with its own
 * package.json, installed here on first use) follows a run from offset 0 and receives every event
 * through `finish`, offsets in order: the finished run waits for it to read the end.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { scriptStep } from '../testing/script-steps.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { GenerateInput } from '../activities/model/model-client.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

const fixture = fileURLToPath(new URL('./fixtures/workflow-streams/', import.meta.url));

// The model's first call waits until the subscriber has read the run's first event: it follows a run at work.
let subscribed!: () => void;
const following = new Promise<void>((resolve) => (subscribed = resolve));
const scripted = new ScriptedModel('followed', [
  scriptStep.call('lookup_order', { orderId: 'A-1001' }),
  scriptStep.call('lookup_order', { orderId: 'A-1002' }),
  scriptStep.text('Both shipped.'),
]);
const followed = { generate: async (input: GenerateInput) => (await following, scripted.generate(input)) };

let w: TestWorker;
beforeAll(async () => {
  if (!existsSync(`${fixture}node_modules/@temporalio/workflow-streams`))
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: fixture, stdio: 'ignore' });
  w = await startTestWorker({ models: { followed } });
}, 240_000);
afterAll(() => w?.stop());

describe("Temporal's Workflow Streams client", () => {
  it('reads every event of a run through finish, offsets in order', async () => {
    const handle = await w.start({ agent: 'test', prompt: 'Check A-1001 and A-1002.', model: 'scripted:followed' });
    // Subscribed from offset 0 as the run works; the subscriber ends by itself when the run closes.
    const child = spawn(process.execPath, [`${fixture}subscribe.cjs`, serverAddress(), handle.workflowId], {
      cwd: fixture,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) subscribed();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect((await handle.result()).answer).toBe('Both shipped.');
    expect([await exited, stderr]).toEqual([0, '']);
    const items = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { topic: string; offset: number; type: string });

    const all: { type: string }[] = [];
    for await (const event of new AgentRunHandle(w.client, handle.workflowId).events()) all.push(event);
    expect(items.map((i) => i.offset)).toEqual(all.map((_, i) => i));
    expect(items.map((i) => i.type)).toEqual(all.map((e) => e.type));
    expect(items.at(-1)).toMatchObject({ topic: 'finish', type: 'finish' });
  });
});
