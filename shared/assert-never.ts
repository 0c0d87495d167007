/**
 * The `default` of a switch over a closed union: `default: return assertNever(step)`. A variant
 * left unhandled makes the argument's type something other than `never`, so `tsc` fails there.
 * Reached at run time only by data the code does not know (a state from a newer build): it throws.
 * Workflow-safe, deterministic.
 */
export function assertNever(value: never, what = 'variant'): never {
  throw new Error(`unhandled ${what}: ${describe(value)}`);
}

/** The value's `type` when it has one (a tagged union's variant), else the value itself, briefly. */
function describe(value: unknown): string {
  const tag = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  const shown = tag === undefined ? value : tag;
  return typeof shown === 'string' ? `"${shown}"` : String(shown);
}
