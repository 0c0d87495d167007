/**
 * A `once` tool that dedupes by its idempotency key: a refund that is paid at most once per key,
 * however often the call is repeated after a crash. The workflow gives a `once` call the same key
 * when it repeats a call whose outcome was unknown (shared/identity/once-key.ts), so a retry after a dead
 * worker answers with the first refund instead of paying again; a deliberate second refund gets a
 * new key and is paid. Example code (docs/tools.md), never imported by production code.
 *
 * The ledger here lives in the worker's memory, which is enough to show the shape and for one
 * worker. In production keep it where the money is: pass the key to the payment API (most take an
 * idempotency key, e.g. an `Idempotency-Key` header) or record it in the same database transaction
 * as the refund. Its `reconcile` asks the provider (payment-api.ts) whether the key was paid, so a
 * lost attempt is settled without waking a person.
 */
import { z } from 'zod';
import { defineTool, type ReconcileOutcome } from 'cairn-agents';

/** The payment provider: pays a refund under an idempotency key, and says whether a key was paid (payment-api.ts). */
export interface Payments {
  refund(orderId: string, amount: number, idempotencyKey: string): Promise<{ readonly reference: string }>;
  findRefund(
    idempotencyKey: string,
  ): Promise<{ readonly orderId: string; readonly amount: number; readonly reference: string } | undefined>;
}

export interface RefundReceipt {
  readonly orderId: string;
  readonly refunded: number;
  readonly reference: string;
  /** True when this key was paid before and this answer is the earlier refund's. */
  readonly replayed: boolean;
}

/** Refunds keyed by idempotency key; a call in flight is shared, not repeated. */
export class RefundLedger {
  readonly #byKey = new Map<string, Promise<RefundReceipt>>();

  constructor(private readonly payments: Payments) {}

  async refundOnce(key: string, orderId: string, amount: number): Promise<RefundReceipt> {
    const earlier = this.#byKey.get(key);
    if (earlier) return { ...(await earlier), replayed: true };
    const paying = this.payments
      .refund(orderId, amount, key)
      .then(({ reference }) => ({ orderId, refunded: amount, reference, replayed: false }));
    this.#byKey.set(key, paying);
    // A refund that failed was not paid: the key may be used again.
    paying.catch(() => this.#byKey.delete(key));
    return paying;
  }

  /**
   * Whether the refund under `key` happened, asked of the provider (a worker that died took its
   * memory with it): a `once` tool's `reconcile` after an attempt whose outcome is unknown.
   */
  async reconcile(key: string): Promise<ReconcileOutcome<RefundReceipt>> {
    const paid = await this.payments.findRefund(key);
    return paid
      ? {
          happened: true,
          result: { orderId: paid.orderId, refunded: paid.amount, reference: paid.reference, replayed: true },
        }
      : { happened: false };
  }
}

/** What the worker injects as `deps` for this tool. */
export interface RefundDeps {
  readonly refunds: RefundLedger;
}

export const issueRefund = defineTool({
  name: 'issue_refund',
  description:
    'Refund an amount on an order. Each call pays once; repeating a call whose outcome was unknown does not pay twice.',
  input: z.object({ orderId: z.string(), amount: z.number().positive() }),
  examples: [{ orderId: 'A-1001', amount: 20 }],
  sideEffects: 'once',
  approval: ({ amount }) => amount > 50,
  execute: ({ orderId, amount }, { idempotencyKey, deps }) =>
    (deps as RefundDeps).refunds.refundOnce(idempotencyKey, orderId, amount),
  // After a lost attempt, the provider is asked, not a person: paid → its refund is the result; not paid → paid now, same key.
  reconcile: ({ idempotencyKey }, { deps }) => (deps as RefundDeps).refunds.reconcile(idempotencyKey),
});
