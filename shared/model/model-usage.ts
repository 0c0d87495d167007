/**
 * What a run's model calls used: tokens in and out, and their cost from the price table the worker
 * was given (docs/models.md, "Prices"). Per call in a model reply's `usage`, summed per run and per
 * model in the planner's state. Workflow-safe, deterministic.
 */

/** One model call's usage, as the provider reported it (and its cost, when the worker knows the price). */
export interface CallUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** In US dollars (or whatever unit the price table uses), from the worker's price table. */
  readonly costUsd?: number;
}

/** Totals of some model calls. */
export interface UsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Model calls that came back with a reply. */
  readonly calls: number;
}

/** A run's usage: its totals and the same per model spec. Carried across continue-as-new. */
export interface RunUsage extends UsageTotals {
  readonly byModel: Readonly<Record<string, UsageTotals>>;
}

/** A model's price, per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

export const NO_USAGE: RunUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0, byModel: {} };

const ZERO: UsageTotals = { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 };

function plus(totals: UsageTotals, call: CallUsage | undefined): UsageTotals {
  return {
    inputTokens: totals.inputTokens + (call?.inputTokens ?? 0),
    outputTokens: totals.outputTokens + (call?.outputTokens ?? 0),
    // Rounded to a billionth: sums of floats stay readable and replay the same.
    costUsd: Math.round((totals.costUsd + (call?.costUsd ?? 0)) * 1e9) / 1e9,
    calls: totals.calls + 1,
  };
}

/** `usage` with one more call of `model` added. */
export function addUsage(usage: RunUsage | undefined, model: string, call: CallUsage | undefined): RunUsage {
  const base = usage ?? NO_USAGE;
  return { ...plus(base, call), byModel: { ...base.byModel, [model]: plus(base.byModel[model] ?? ZERO, call) } };
}

/** Tokens in and out. */
export function totalTokens(usage: UsageTotals | undefined): number {
  return (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
}

/**
 * The cost of a call at `price`, or undefined without a price or without token counts. Worker-side
 * callers (the model activity) attach it to the reply's usage, so the workflow never looks a price up.
 */
export function costOf(price: ModelPrice | undefined, usage: CallUsage | undefined): number | undefined {
  if (!price || !usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return undefined;
  const cost =
    ((usage.inputTokens ?? 0) * price.inputPerMillion + (usage.outputTokens ?? 0) * price.outputPerMillion) / 1_000_000;
  return Math.round(cost * 1e9) / 1e9;
}

/**
 * The price of `spec` (`openai:gpt-4.1-mini`) in `prices`: by the whole spec, else by the model name
 * after the prefix (`gpt-4.1-mini`), else by the provider prefix (`openai`).
 */
export function priceOf(
  prices: Readonly<Record<string, ModelPrice>> | undefined,
  spec: string,
): ModelPrice | undefined {
  if (!prices) return undefined;
  const at = spec.indexOf(':');
  const name = at < 0 ? spec : spec.slice(at + 1);
  const prefix = at < 0 ? spec : spec.slice(0, at);
  for (const key of [spec, name, prefix]) if (Object.hasOwn(prices, key)) return prices[key];
  return undefined;
}
