/**
 * Idempotency keys for `once` tools, stable for the same tool and arguments within a run.
 *
 * The key is `<workflowId>/<tool>#<argsHash>/<n>`. The n-th call of a tool with the same
 * arguments gets `n`, so a person who really wants two identical refunds gets two keys, and the
 * tool runs twice. But a call whose outcome is unknown (its worker died mid-call: the refund may
 * have been paid) gives its `n` back: the next call with the same arguments reuses that key, and a
 * tool that dedupes by key answers with the earlier effect instead of paying again. So a retry
 * after a crash is safe, and a deliberate repeat after a known outcome is not swallowed.
 * The workflow keeps the ledger (plain JSON; carry it across continue-as-new).
 * Workflow-safe, deterministic.
 */
import type { ToolResult } from '../tools/tool-result.js';
import { failureCode } from '../tools/tool-result.js';

/** Per `<tool>#<argsHash>`: the highest `n` issued, and the ones given back, lowest first. */
export interface OnceLedgerEntry {
  readonly issued: number;
  readonly unknown: readonly number[];
}

export type OnceLedger = Readonly<Record<string, OnceLedgerEntry>>;

/** A `once` call to key: the tool's name and its arguments' hash (`argsHash`). */
export interface OnceCall {
  readonly name: string;
  readonly argsHash: string;
}

/** `<workflowId>/<tool>#<argsHash>/<n>`. */
export function onceIdempotencyKey(workflowId: string, call: OnceCall, n: number): string {
  return `${workflowId}/${call.name}#${call.argsHash}/${n}`;
}

/**
 * Keys for a batch of `once` calls, in order, and the ledger with them issued. Each call takes
 * the lowest `n` given back for its tool and arguments, else the next new one; two identical calls
 * in one batch get different keys.
 */
export function issueOnceKeys(
  ledger: OnceLedger,
  workflowId: string,
  calls: readonly OnceCall[],
): { keys: string[]; ledger: OnceLedger } {
  const next: Record<string, OnceLedgerEntry> = { ...ledger };
  const keys = calls.map((call) => {
    const id = ledgerId(call);
    const entry = Object.hasOwn(next, id) ? next[id]! : { issued: 0, unknown: [] };
    const [reused, ...rest] = entry.unknown;
    const n = reused ?? entry.issued + 1;
    next[id] = { issued: Math.max(entry.issued, n), unknown: rest };
    return onceIdempotencyKey(workflowId, call, n);
  });
  return { keys, ledger: next };
}

/**
 * The ledger after `once` calls settled: a call whose outcome is not known (`outcome_unknown`, or
 * cancelled mid-call) gives its `n` back for the next call with the same arguments.
 */
export function settleOnceKeys(
  ledger: OnceLedger,
  settled: readonly (OnceCall & { readonly key: string; readonly result: ToolResult })[],
): OnceLedger {
  const next: Record<string, OnceLedgerEntry> = { ...ledger };
  for (const { key, result, ...call } of settled) {
    if (outcomeKnown(result)) continue;
    const n = Number(key.slice(key.lastIndexOf('/') + 1));
    if (!Number.isInteger(n) || n < 1) continue;
    const id = ledgerId(call);
    const entry = Object.hasOwn(next, id) ? next[id]! : { issued: n, unknown: [] };
    if (!entry.unknown.includes(n))
      next[id] = { issued: Math.max(entry.issued, n), unknown: [...entry.unknown, n].sort((a, b) => a - b) };
  }
  return next;
}

/** False when nobody knows whether the call took effect: `outcome_unknown`, or cancelled while running. */
export function outcomeKnown(result: ToolResult): boolean {
  const code = failureCode(result);
  return code !== 'outcome_unknown' && code !== 'cancelled';
}

function ledgerId(call: OnceCall): string {
  return `${call.name}#${call.argsHash}`;
}
