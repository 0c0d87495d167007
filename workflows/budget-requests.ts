/**
 * A person's answer to a budget request (policy `budget.onExhausted: 'ask'`): extend the run's
 * budget by some tokens and/or cost, or stop it. Taken through `extendBudgetUpdate`, whose validator
 * refuses bad input before anything enters history (a `HumanInputError` with a stable code, as for
 * answers and reviews). Workflow code (sandbox), deterministic.
 */
import { setHandler } from '@temporalio/workflow';
import type { BudgetDecision, PlanStep } from '../planner/index.js';
import { HumanInputError } from './human-input.js';
import { extendBudgetUpdate, type BudgetExtensionInput } from './contract/human-messages.js';

/** The most tokens, and the most cost, one extension may add. */
export const MAX_EXTENSION_TOKENS = 1_000_000_000;
export const MAX_EXTENSION_COST = 1_000_000;
const MAX_REASON_CHARS = 2_000;

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
  const decision: unknown = input.decision;
  if (!decision || typeof decision !== 'object' || Array.isArray(decision))
    throw new HumanInputError(
      'Expected a decision: { type: "extend", tokens?, costUsd? } or { type: "stop", reason? }.',
    );
  const { type, tokens, costUsd, reason } = decision as Record<string, unknown>;
  if (type === 'stop') {
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_CHARS))
      throw new HumanInputError(`A stop's reason is text of at most ${MAX_REASON_CHARS} characters.`);
    return { type: 'stop', ...(typeof reason === 'string' && reason.trim() && { reason: reason.trim() }) };
  }
  if (type !== 'extend')
    throw new HumanInputError(
      `A budget decision's type is "extend" or "stop", not ${JSON.stringify(String(type)).slice(0, 40)}.`,
    );
  if (
    tokens !== undefined &&
    !(Number.isInteger(tokens) && (tokens as number) >= 1 && (tokens as number) <= MAX_EXTENSION_TOKENS)
  )
    throw new HumanInputError(`tokens must be a whole number from 1 to ${MAX_EXTENSION_TOKENS}.`);
  if (
    costUsd !== undefined &&
    !(typeof costUsd === 'number' && Number.isFinite(costUsd) && costUsd > 0 && costUsd <= MAX_EXTENSION_COST)
  )
    throw new HumanInputError(`costUsd must be a number above 0 and at most ${MAX_EXTENSION_COST}.`);
  if (tokens === undefined && costUsd === undefined)
    throw new HumanInputError('An extension names tokens, costUsd or both.');
  const limit = step.request.limit;
  if (limit === 'tokens' && tokens === undefined)
    throw new HumanInputError('The token budget is used up: the extension must add tokens.');
  if (limit === 'cost' && costUsd === undefined)
    throw new HumanInputError('The cost budget is used up: the extension must add costUsd.');
  return {
    type: 'extend',
    ...(tokens !== undefined && { tokens: tokens as number }),
    ...(costUsd !== undefined && { costUsd: costUsd as number }),
  };
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
  install(step: () => PlanStep, handingOver: () => boolean): void {
    setHandler(
      extendBudgetUpdate,
      (input: BudgetExtensionInput) => {
        this.#decision ??= validateBudgetDecision(step(), input, undefined);
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
