/**
 * The README's AI SDK pattern, for real: an agents module that imports `tool` from the `ai`
 * package (a value import, so `ai` and what it imports are in the workflow bundle) runs on the
 * real dev server to completion. And a bundle whose modules cannot load in Temporal's sandbox is
 * refused when the worker starts, naming the global and the module, instead of failing every
 * workflow task of every run.
 */
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { checkWorkflowBundle } from '../runtime/workflow-bundle-check.js';
import { scriptStep } from '../testing/script-steps.js';
import { weatherAgent, weatherCalls } from './fixtures/ai-sdk-agents.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const entry = join(PACKAGE_ROOT, 'test/fixtures/ai-sdk-workflows.ts');
let w: TestWorker;
// `ai` makes a ~5 MB bundle: webpack takes minutes on a loaded 2-core machine.
beforeAll(async () => {
  w = await startTestWorker({ agents: [weatherAgent], workflowBundle: { code: (await bundleWorkflows(entry)).code } });
}, 600_000);
afterAll(() => w?.stop());

describe('an AI SDK tool() in the agents module', () => {
  it('runs an agent whose tool is a real tool() from ai to completion', async () => {
    const { model, scripted } = w.script([
      scriptStep.call('get_weather', { city: 'Paris' }),
      scriptStep.text('Clear, 21 °C.'),
    ]);
    const handle = await w.start({ agent: 'weather', prompt: 'Weather in Paris?', model });
    expect(await handle.result()).toMatchObject({ answer: 'Clear, 21 °C.', toolCalls: 1 });
    expect(weatherCalls.Paris).toBe(1);
    // The tool's result, as the model read it on its second turn.
    const tool = scripted.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(tool?.content).toEqual({ city: 'Paris', sky: 'clear', celsius: 21 });
  });

  it('refuses, at worker start, a bundle whose modules fail to load in the sandbox', { timeout: 600_000 }, async () => {
    // Temporal's own bundler, without Cairn's stand-ins: eventsource-parser (via ai) needs TransformStream as it loads.
    const raw = await bundleWorkflowCode({
      workflowsPath: entry,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    await expect(checkWorkflowBundle({ code: raw.code })).rejects.toMatchObject({
      name: 'WorkflowBundleError',
      message: expect.stringMatching(
        /every workflow task would fail: TransformStream is not defined \(in \.\/node_modules\/eventsource-parser\//,
      ),
    });
    await expect(startTestWorker({ agents: [weatherAgent], workflowBundle: { code: raw.code } })).rejects.toThrow(
      /TransformStream is not defined/,
    );
  });
});
