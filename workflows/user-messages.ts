/**
 * Messages a person sends while the run works (`run.send`, `cairn say`, `POST /runs/:id/messages`):
 * the handler of the `sendMessage` Update (workflows/contract/human-messages.ts), its validator (bounded
 * like an answer; refused while the run is finishing, when the queue is full, or while busy under
 * `onMessage: 'reject'`, all without writing history), the queue until the planner delivers it (planner/plan-messages.ts), and the
 * interrupt that cuts a model call short under `onMessage: 'interrupt'`. Carried across
 * continue-as-new. Workflow code (sandbox), deterministic.
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { JsonValue } from '../shared/json/json.js';
import {
  messageDecision,
  workingOn,
  type PlannerState,
  type PlanStep,
  type UserMessage,
  type Working,
} from '../planner/index.js';
import { HumanInputError } from './human-input.js';
import { MAX_HUMAN_INPUT_CHARS } from '../shared/size-limits.js';
import type { CarriedMessages } from './contract/agent-run.js';
import { sendMessageUpdate, type UserMessageInput } from './contract/human-messages.js';
import type { HumanKind } from './contract/run-event.js';

/** Messages waiting for the next model turn; more are refused until they are delivered. */
export const MAX_QUEUED_MESSAGES = 32;

export class UserMessages {
  #queued: UserMessage[];
  #count: number;
  #working: Working = null;
  #interrupt: (() => void) | undefined;

  constructor(carried?: CarriedMessages) {
    this.#queued = [...(carried?.queued ?? [])];
    this.#count = carried?.count ?? 0;
  }

  /** `closed` is true once the run is finishing or handing over: a message then would never be read. */
  install(
    state: () => PlannerState,
    closed: () => boolean,
    heard: (kind: HumanKind, id: string, detail: JsonValue) => void,
  ): void {
    const decide = () => messageDecision(state().policy.onMessage, this.#working);
    setHandler(
      sendMessageUpdate,
      (input) => {
        const id = `m${++this.#count}`;
        const text = input.text.trim();
        const decision = decide();
        this.#queued.push({ id, text });
        heard('message', id, text);
        if (decision === 'interrupt') this.#interrupt?.();
        return { id, delivery: decision === 'interrupt' ? 'interrupting' : 'queued' };
      },
      {
        validator: (input) => {
          const text: unknown = (input as UserMessageInput | undefined)?.text;
          if (typeof text !== 'string' || text.trim() === '')
            throw new HumanInputError('Expected { text: a non-empty string }.');
          if (text.length > MAX_HUMAN_INPUT_CHARS)
            throw new HumanInputError(`The message is longer than ${MAX_HUMAN_INPUT_CHARS} characters.`);
          if (closed() || state().finalizing !== null)
            throw ApplicationFailure.create({
              message: 'The run is finishing and will read no more messages.',
              type: 'RunFinishing',
              nonRetryable: true,
            });
          if (this.#queued.length >= MAX_QUEUED_MESSAGES)
            throw ApplicationFailure.create({
              message: `${MAX_QUEUED_MESSAGES} messages already wait for the next model turn; send again after it.`,
              type: 'MessageQueueFull',
              nonRetryable: true,
            });
          if (decide() === 'refuse')
            throw ApplicationFailure.create({
              message: 'The run is busy (onMessage: reject); send again when it waits.',
              type: 'RunBusy',
              nonRetryable: true,
            });
        },
        description: 'A message from a person while the run works: { text }. Delivered before the next model turn.',
      },
    );
  }

  /** The messages waiting, oldest first. */
  get queued(): readonly UserMessage[] {
    return this.#queued;
  }

  /** Empties the queue (its messages were delivered). */
  delivered(): void {
    this.#queued = [];
  }

  /**
   * Marks `step` as running until the returned function is called; for a model call, also returns
   * a promise an interrupting message resolves.
   */
  working(step: PlanStep): { readonly interrupted: Promise<void>; readonly done: () => void } {
    this.#working = workingOn(step);
    const interrupted = new Promise<void>((resolve) => (this.#interrupt = resolve));
    return {
      interrupted,
      done: () => {
        this.#working = null;
        this.#interrupt = undefined;
      },
    };
  }

  carried(): CarriedMessages | undefined {
    return this.#count > 0 ? { queued: this.#queued, count: this.#count } : undefined;
  }
}
