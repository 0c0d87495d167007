/**
 * A person's answer to a budget request (policy `budget.onExhausted: 'ask'`): extend the run's
 * budget by some tokens and/or cost, or stop it. Taken through `extendBudgetUpdate`, whose validator
 * refuses bad input before anything enters history (a `HumanInputError` with a stable code, as for
 * answers and reviews). Workflow code (sandbox), deterministic.
 */
import { setHandler } from '@temporalio/workflow';
import type { JsonValue } from '../shared/json/json.js';
import type { BudgetDecision, PlanStep } from '../planner/index.js';
import { parseBudgetDecision } from '../shared/human-input/budget-decision.js';
import { HumanInputError } from './human-input.js';
import { extendBudgetUpdate, type BudgetExtensionInput } from './contract/human-messages.js';

/** The decision `input` carries, checked against the pending request; throws a HumanInputError when it cannot be used. */
export function validateBudgetDecision(
  step: PlanStep,
  input: BudgetExtensionInput,
  taken: BudgetDecision | undefined,
): BudgetDecision {
  if (step.type !== 'await_budget') throw new HumanInputError('No budget request is pending.', 'not_pending');
  if (!input || typeof input !== 'object') throw new HumanInputError('Expected { id, decision }.');
  if (input.id !== step.request.id)
    throw new HumanInputError(
      `Unknown budget request id "${String(input.id).slice(0, 40)}"; the pending one is "${step.request.id}".`,
      'not_pending',
    );
  if (taken)
    throw new HumanInputError(
      'This budget request was already decided; the run is acting on that decision.',
      'already_decided',
    );
  const parsed = parseBudgetDecision(input.decision);
  if (!parsed.ok) throw new HumanInputError(parsed.message);
  const decision = parsed.value;
  if (decision.type === 'stop') return decision;
  const { tokens, costUsd } = decision;
  const limit = step.request.limit;
  if (limit === 'tokens' && tokens === undefined)
    throw new HumanInputError('The token budget is used up: the extension must add tokens.');
  if (limit === 'cost' && costUsd === undefined)
    throw new HumanInputError('The cost budget is used up: the extension must add costUsd.');
  return decision;
}

/** Holds the decision on the pending budget request until the run takes it. */
export class BudgetRequests {
  #decision: BudgetDecision | undefined;

  /** The decision taken and not yet acted on. */
  get decision(): BudgetDecision | undefined {
    return this.#decision;
  }

  /** Hands the decision to the run, once. */
  take(): BudgetDecision | undefined {
    const decision = this.#decision;
    this.#decision = undefined;
    return decision;
  }

  /** `handingOver`: the run is about to continue as new, and a decision taken now would not be carried: refused, to send again. */
  install(
    step: () => PlanStep,
    handingOver: () => boolean,
    heard: (kind: 'budget', id: string, detail: JsonValue) => void = () => {},
  ): void {
    setHandler(
      extendBudgetUpdate,
      (input: BudgetExtensionInput) => {
        if (this.#decision) return;
        this.#decision = validateBudgetDecision(step(), input, undefined);
        // Whoever watches the run is told who decided what (the run page's story, cairn watch).
        heard('budget', input.id, this.#decision as unknown as JsonValue);
      },
      {
        validator: (input: BudgetExtensionInput) => {
          if (handingOver())
            throw new HumanInputError(
              'The run is handing over to its continuation; send the decision again in a moment.',
              'not_pending',
            );
          validateBudgetDecision(step(), input, this.#decision);
        },
        description:
          'Decide the pending budget request: { id, decision: { type: "extend", tokens?, costUsd? } | { type: "stop", reason? } }.',
      },
    );
  }
}
