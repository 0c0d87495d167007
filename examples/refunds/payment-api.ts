/**
 * A fake payment provider, as payment APIs worth the name behave: a refund is requested with an
 * idempotency key, a repeat of the key answers with the first refund instead of paying again, and
 * the key can be looked up afterwards ("did the refund with this key happen?", what Stripe's and
 * Adyen's idempotency records answer). The `reconcile` of a `once` refund tool asks exactly that.
 * Kept in memory: it stands in for the provider, which outlives any worker. Example code.
 */

export interface PaidRefund {
  readonly orderId: string;
  readonly amount: number;
  readonly reference: string;
}

export class FakePaymentApi {
  readonly #byKey = new Map<string, PaidRefund>();

  /** Pays `amount` on `orderId` once per `idempotencyKey`; a repeated key answers with the first refund. */
  async refund(orderId: string, amount: number, idempotencyKey: string): Promise<PaidRefund> {
    const earlier = this.#byKey.get(idempotencyKey);
    if (earlier) return earlier;
    const paid = { orderId, amount, reference: `RF-${this.#byKey.size + 1}` };
    this.#byKey.set(idempotencyKey, paid);
    return paid;
  }

  /** The refund paid under `idempotencyKey`, or undefined when none was. */
  async findRefund(idempotencyKey: string): Promise<PaidRefund | undefined> {
    return this.#byKey.get(idempotencyKey);
  }

  /** Every refund paid, in order (for tests and the demo's checks). */
  get paid(): readonly PaidRefund[] {
    return [...this.#byKey.values()];
  }
}
