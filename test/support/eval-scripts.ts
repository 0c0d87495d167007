/**
 * Scripted models for test/eval.test.ts, chosen by the run's prompt: the runs the test records,
 * and candidates that take the same decisions or change them in known ways.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerateInput, ModelClient } from '../../activities/model/model-client.js';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import { scriptStep, type FixedStep, type Script, type ScriptContext } from '../../testing/script-steps.js';

/** One ScriptedModel per run, made from the script its prompt names. */
export class PromptScripts implements ModelClient {
  readonly #runs = new Map<string, ScriptedModel>();
  constructor(readonly scripts: Readonly<Record<string, () => Script>>) {}

  async generate(input: GenerateInput): Promise<ModelOutcome> {
    const key = input.runKey ?? '';
    let model = this.#runs.get(key);
    if (!model) {
      const prompt = String(input.messages.find((m) => m.role === 'user')?.content ?? '');
      const script = this.scripts[prompt];
      if (!script) throw new Error(`no script for the prompt ${JSON.stringify(prompt)}`);
      // A run this process did not start (an evaluation resumed after a crash) goes on where its transcript stands.
      const startAt = input.messages.filter((m) => m.role === 'assistant').length;
      model = new ScriptedModel(prompt, script(), { record: false, startAt });
      this.#runs.set(key, model);
    }
    return model.generate(input);
  }
}

/**
 * PromptScripts whose first turn of `prompt` waits until `<gate>.open` exists, having written
 * `<gate>.entered`: a test that kills or interrupts an evaluation does it mid-case, however fast
 * the cases before it ran.
 */
export class GatedScripts extends PromptScripts {
  constructor(
    scripts: Readonly<Record<string, () => Script>>,
    readonly gate: string,
    readonly prompt: string,
  ) {
    super(scripts);
  }

  override async generate(input: GenerateInput): Promise<ModelOutcome> {
    const prompt = input.messages.find((m) => m.role === 'user')?.content;
    if (prompt === this.prompt && !existsSync(`${this.gate}.open`)) {
      writeFileSync(`${this.gate}.entered`, '');
      while (!existsSync(`${this.gate}.open`) && !input.signal?.aborted) await sleep(50);
    }
    return super.generate(input);
  }
}

const answered = ({ messages }: ScriptContext) => messages.length > 2 && messages.at(-1)?.role === 'user';
const lookUpBad = scriptStep.react((ctx) =>
  answered(ctx) || ctx.tools.length === 0 || ctx.toolChoice === 'none'
    ? scriptStep.text('I could not look it up.')
    : scriptStep.call('lookup_order', { orderId: 'bad' }),
);

export const PROMPTS = {
  redeliver: 'redeliver A-1',
  refund: 'refund A-7',
  small: 'refund 20 on A-9',
  status: 'status of A-3',
  bad: 'look up order bad',
  budget: 'budget A-5',
  helper: 'ask the helper about A-8',
} as const;

/** The task the helper case hands the helper agent: its child run's prompt. */
export const HELPER_TASK = 'look up A-8';

/** The budget case's run policy: a person must extend it after the second turn (70 tokens a turn). */
export const BUDGET_POLICY = { budget: { maxTokens: 100, onExhausted: 'ask', wrapUpAt: 1 } } as const;

const costing = (step: FixedStep, costUsd: number): FixedStep =>
  ({
    ...step,
    usage: { inputTokens: 60, outputTokens: 10, costUsd },
  }) as FixedStep;

const budget = (costUsd: number): Script => [
  costing(scriptStep.call('lookup_order', { orderId: 'A-5' }), costUsd),
  costing(scriptStep.call('lookup_order', { orderId: 'A-6' }), costUsd),
  costing(scriptStep.text('A-5 and A-6 shipped.'), costUsd),
];

const redeliver = (finalText: string): Script => [
  scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
  scriptStep.react(({ messages }) =>
    scriptStep.call('schedule_redelivery', {
      orderId: 'A-1',
      window: String(messages.findLast((m) => m.role === 'user')?.content).includes('afternoon')
        ? 'afternoon'
        : 'morning',
    }),
  ),
  scriptStep.text(finalText),
];

/** What the recorded runs did. */
export const RECORDED: Record<string, () => Script> = {
  [PROMPTS.redeliver]: () => redeliver('Scheduled.'),
  [PROMPTS.refund]: () => [
    scriptStep.call('lookup_order', { orderId: 'A-7' }),
    scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }),
    scriptStep.text('Refunded 60 on A-7.'),
  ],
  [PROMPTS.small]: () => [
    scriptStep.call('issue_refund', { orderId: 'A-9', amount: 20 }),
    scriptStep.text('Refunded 20.'),
  ],
  [PROMPTS.status]: () => [scriptStep.call('lookup_order', { orderId: 'A-3' }), scriptStep.text('A-3 has shipped.')],
  [PROMPTS.bad]: () => Array.from({ length: 8 }, () => lookUpBad),
  [PROMPTS.budget]: () => budget(0.01),
  [PROMPTS.helper]: () => [
    scriptStep.call('ask_helper', { task: HELPER_TASK }),
    scriptStep.text('The helper says A-8 shipped.'),
  ],
  [HELPER_TASK]: () => [scriptStep.call('lookup_order', { orderId: 'A-8' }), scriptStep.text('A-8 has shipped.')],
};

/** A candidate model: skips lookup_order before the refund, refunds 70 instead of 20, looks up A-4, answers the redelivery in other words. */
export const CHANGED: Record<string, () => Script> = {
  ...RECORDED,
  [PROMPTS.redeliver]: () => redeliver('Your redelivery is booked.'),
  [PROMPTS.refund]: () => [
    scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }),
    scriptStep.text('Refunded 60 on A-7.'),
  ],
  [PROMPTS.small]: () => [
    scriptStep.call('issue_refund', { orderId: 'A-9', amount: 70 }),
    scriptStep.text('Refunded 70.'),
  ],
  [PROMPTS.status]: () => [scriptStep.call('lookup_order', { orderId: 'A-4' }), scriptStep.text('A-3 has shipped.')],
  // The same decisions at twice the price.
  [PROMPTS.budget]: () => budget(0.02),
};
