/**
 * Model turns stream: a scripted streaming model on a real dev server, its deltas published to the
 * run's own stream with Cairn's publish Update (the durable transport). The first
 * delta reaches a reader while the model call is still held open; the reply equals what the deltas
 * add up to; a call that dies mid-stream is followed by a reset and the retry's whole text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { RunEventItem } from '../client/run-events.js';
import { ModelServerError } from '../activities/model/model-errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import type { ScriptedStreaming } from '../testing/scripted-streaming.js';
import { liveText } from '../servers/http/live-deltas.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
/** Models by name, each handed the streaming its test sets when the run calls it (the worker copies the registry at start). */
const streamings = new Map<string, ScriptedStreaming>();
const scripted = (name: string, script: ConstructorParameters<typeof ScriptedModel>[1]) =>
  new ScriptedModel(name, script, {
    streaming: {
      pieces: 10,
      before: (i, context) => streamings.get(name)?.before?.(i, context),
    },
  });

const REPLY = 'The order A-1001 shipped on Monday and arrives on Thursday, on time.';
const models = {
  held: scripted('held', [scriptStep.text(REPLY)]),
  dies: scripted('dies', [scriptStep.text(REPLY), scriptStep.text(REPLY)]),
};
beforeAll(
  async () => void (w = await startTestWorker({ models, activityOptions: { modelActivity: { streaming: true } } })),
);
afterAll(() => w?.stop());

function streamingModel(name: keyof typeof models, streaming: ScriptedStreaming): string {
  streamings.set(name, streaming);
  return `scripted:${name}`;
}

/** Reads a run's events; `onEvent` sees each as it arrives. */
async function follow(run: AgentRunHandle, onEvent: (e: RunEventItem) => void = () => {}): Promise<RunEventItem[]> {
  const seen: RunEventItem[] = [];
  for await (const event of run.events()) {
    seen.push(event);
    onEvent(event);
  }
  return seen;
}

describe('durable live deltas', () => {
  it('reach a reader while the model call is still open, and add up to the recorded reply', async () => {
    let sawDelta!: () => void;
    const deltaSeen = new Promise<void>((resolve) => (sawDelta = resolve));
    // The model holds its second piece until the reader has the first: the call cannot complete before.
    const model = streamingModel('held', { before: (i) => (i === 1 ? deltaSeen : undefined) });
    const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model });
    const run = new AgentRunHandle(w.client, handle.workflowId);
    const events = await follow(run, (e) => e.type === 'model_delta' && sawDelta());
    expect((await handle.result()).answer).toBe(REPLY);

    const types = events.map((e) => e.type);
    const firstDelta = types.indexOf('model_delta');
    expect(firstDelta).toBeGreaterThan(0);
    expect(firstDelta).toBeLessThan(types.indexOf('model_turn'));
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(liveText(events).get('model:1:1')).toBe(REPLY);
  });

  it('a call that dies mid-stream: a reset, then the retry whole, never text twice', async () => {
    const model = streamingModel('dies', {
      before: (i, context) => {
        if (context.step === 0 && i === 4) throw new ModelServerError('The connection dropped mid-stream.', 502);
      },
    });
    const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model });
    const events = await follow(new AgentRunHandle(w.client, handle.workflowId));
    expect((await handle.result()).answer).toBe(REPLY);

    const live = events.filter((e) => e.type === 'model_delta' || e.type === 'model_reset');
    const reset = live.findIndex((e) => e.type === 'model_reset');
    expect(live[reset]).toMatchObject({ type: 'model_reset', call: 'model:1:1', attempt: 2 });
    // Before the reset only the first attempt's partial text; after it only the retry's.
    expect(live.slice(0, reset).every((e) => e.attempt === 1)).toBe(true);
    expect(live.slice(reset).every((e) => e.attempt === 2)).toBe(true);
    const partial = live
      .slice(0, reset)
      .map((e) => (e.type === 'model_delta' ? (e.text ?? '') : ''))
      .join('');
    expect(REPLY.startsWith(partial) && partial.length < REPLY.length).toBe(true);
    expect(liveText(events).get('model:1:1')).toBe(REPLY);
  });
});
