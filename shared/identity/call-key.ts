/**
 * A call's identity: `name#argsHash`. Budgets, loop detection, blocked calls and back-off jitter
 * all count by it, so the same tool with the same arguments (in any key order) is one call.
 * Built only here; nothing parses it back (the hash travels beside it where it is needed).
 * Workflow-safe, deterministic.
 */

export function callKey(name: string, argsHash: string): string {
  return `${name}#${argsHash}`;
}
