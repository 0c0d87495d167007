/**
 * A person speaks while the agent works (`run.send`), on a real dev server: under `enqueue` a
 * message sent mid-turn is in the next model turn's input; under `interrupt` the model call in
 * flight is cancelled and the next call includes the message; under `reject` it is refused while
 * busy; 1,000 messages sent at once each get a clear status and the run completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import type { PolicyOverrides } from '../shared/agent/agent-policy.js';
import { events } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

/** A scripted model whose calls wait at a gate the test opens; `holdUntilAborted` makes a call wait for its cancel. */
class GatedModel implements ModelClient {
  readonly calls: GenerateInput[] = [];
  #open!: () => void;
  #opened = new Promise<void>((resolve) => (this.#open = resolve));
  #arrived: (() => void)[] = [];
  constructor(
    readonly scripted: ScriptedModel,
    readonly holdUntilAborted = false,
  ) {}
  /** Resolves once `n` calls have arrived. */
  arrived(n: number): Promise<void> {
    return this.calls.length >= n
      ? Promise.resolve()
      : new Promise((resolve) => this.#arrived.push(() => this.calls.length >= n && resolve()));
  }
  open(): void {
    this.#open();
  }
  async generate(input: GenerateInput): Promise<ModelOutcome> {
    this.calls.push(input);
    for (const wake of this.#arrived) wake();
    if (this.holdUntilAborted && this.calls.length === 1)
      await new Promise((_, reject) => input.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    await this.#opened;
    return this.scripted.generate(input);
  }
}

const models = {
  enqueue: new GatedModel(
    new ScriptedModel('enqueue', [
      scriptStep.call('lookup_order', { orderId: 'A-1001' }),
      scriptStep.text('Both checked.'),
    ]),
  ),
  interrupt: new GatedModel(new ScriptedModel('interrupt', [scriptStep.text('Checked A-1002 as you asked.')]), true),
  reject: new GatedModel(new ScriptedModel('reject', [scriptStep.text('Done.')])),
  storm: new GatedModel(
    new ScriptedModel(
      'storm',
      Array.from({ length: 8 }, () => scriptStep.text('Read them all.')),
    ),
  ),
};
let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker({ models })));
afterAll(() => w?.stop());

async function startHeld(name: keyof typeof models, policy?: PolicyOverrides) {
  const handle = await w.start({
    agent: 'test',
    prompt: 'Check A-1001.',
    model: `scripted:${name}`,
    ...(policy && { policy }),
  });
  await models[name].arrived(1);
  return { handle, run: new AgentRunHandle(w.client, handle.workflowId) };
}

const said = (input: GenerateInput | undefined, text: string) =>
  input?.messages.some((m) => m.role === 'user' && m.content === text) ?? false;

describe('messages while the run works', () => {
  it('enqueue: a message sent mid-turn is in the next model turn, and in the step log', async () => {
    const { handle, run } = await startHeld('enqueue');
    expect(await run.send('Also check A-1002, please.')).toMatchObject({
      status: 'accepted',
      id: 'm1',
      delivery: 'queued',
    });
    models.enqueue.open();
    expect((await handle.result()).answer).toBe('Both checked.');
    const [first, second] = models.enqueue.calls;
    expect(said(first, 'Also check A-1002, please.')).toBe(false);
    expect(said(second, 'Also check A-1002, please.')).toBe(true);
    expect((await run.state()).steps.some((s) => s.action === 'message' && s.detail.includes('A-1002'))).toBe(true);
  });

  it('interrupt: the model call in flight is cancelled and the next call includes the message', async () => {
    const { handle, run } = await startHeld('interrupt', { onMessage: 'interrupt' });
    models.interrupt.open();
    expect(await run.send('Check A-1002 instead.')).toMatchObject({ status: 'accepted', delivery: 'interrupting' });
    expect((await handle.result()).answer).toBe('Checked A-1002 as you asked.');
    expect(models.interrupt.calls).toHaveLength(2);
    // The cancel reaches the first call (with the activity's next heartbeat).
    const first = models.interrupt.calls[0]!.signal!;
    await new Promise((resolve) => (first.aborted ? resolve(undefined) : first.addEventListener('abort', resolve)));
    expect(said(models.interrupt.calls[1], 'Check A-1002 instead.')).toBe(true);
    const history = await events(handle);
    expect(history.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
  });

  it('reject: refused while the model works, with a status, and nothing in history', async () => {
    const { handle, run } = await startHeld('reject', { onMessage: 'reject' });
    expect(await run.send('Hello?')).toMatchObject({ status: 'refused', code: 'busy' });
    expect(await run.send('   ')).toMatchObject({ status: 'refused', code: 'invalid' });
    models.reject.open();
    expect((await handle.result()).answer).toBe('Done.');
    expect(await run.send('Too late.')).toMatchObject({ status: 'refused', code: 'closed' });
    expect(
      (await events(handle)).some(
        (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'sendMessage',
      ),
    ).toBe(false);
  });

  it('1,000 messages at once: each accepted, refused, throttled or unknown, at most a queue of them delivered, none twice, and the run completes', async () => {
    const { handle, run } = await startHeld('storm');
    const outcomes = await Promise.all(Array.from({ length: 1_000 }, (_, i) => run.send(`message ${i}`)));
    const by = (status: string) => outcomes.filter((o) => o.status === status);
    expect(by('accepted').length + by('refused').length + by('throttled').length + by('unknown').length).toBe(1_000);
    expect(by('refused').every((o) => o.status === 'refused' && o.code === 'queue_full')).toBe(true);
    // On a loaded machine the server may throttle every one of a thousand Updates at once: the run
    // still takes a message after the storm (sent again with the same Update id while throttled or
    // unknown, as a client would), unless the storm filled its queue (an unknown outcome may have
    // been taken), and then it says so.
    const updateId = 'after-the-storm';
    let after = await run.send('message after the storm', { updateId });
    for (let i = 0; i < 20 && (after.status === 'throttled' || after.status === 'unknown'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      after = await run.send('message after the storm', { updateId });
    }
    const mayBeFull = by('accepted').length + by('unknown').length >= 32;
    if (after.status !== 'accepted') {
      expect(mayBeFull).toBe(true);
      expect(after).toMatchObject({ status: 'refused', code: 'queue_full' });
    }
    models.storm.open();
    expect((await handle.result()).answer).toBe('Read them all.');
    const delivered = models.storm.calls.flatMap((c) =>
      c.messages.flatMap((m) =>
        m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('message ') ? [m.content] : [],
      ),
    );
    // Every accepted message is delivered once; an unknown one at most once; no other.
    const text = (i: number) => `message ${i}`;
    const accepted = [
      ...outcomes.flatMap((o, i) => (o.status === 'accepted' ? [text(i)] : [])),
      ...(after.status === 'accepted' ? ['message after the storm'] : []),
    ];
    const maybe = new Set(outcomes.flatMap((o, i) => (o.status === 'unknown' ? [text(i)] : [])));
    expect(delivered.length).toBe(new Set(delivered).size);
    expect(delivered.length).toBeLessThanOrEqual(32);
    expect(accepted.every((t) => delivered.includes(t))).toBe(true);
    expect(delivered.every((t) => accepted.includes(t) || maybe.has(t))).toBe(true);
  }, 120_000);
});
