import { describe, expect, it } from 'vitest';
import { issueOnceKeys, onceIdempotencyKey, outcomeKnown, settleOnceKeys, type OnceLedger } from './once-key.js';
import { errorResult, NO_TELEMETRY, type ToolResult } from '../tools/tool-result.js';
import { toolError } from '../failures/tool-error.js';

const refund = { name: 'issue_refund', argsHash: '0123456789abcdef' };
const other = { name: 'issue_refund', argsHash: 'fedcba9876543210' };
const ok: ToolResult = {
  status: 'ok',
  name: 'issue_refund',
  toolCallId: '1.1',
  result: { paid: true },
  telemetry: NO_TELEMETRY,
};
const unknown = () =>
  errorResult({ name: 'issue_refund', toolCallId: '1.1' }, toolError('outcome_unknown', 'worker died'));
const declined = () =>
  errorResult({ name: 'issue_refund', toolCallId: '1.1' }, toolError('invalid_arguments', 'card declined'));

/** Issue one key for `call`, settle it with `result`; returns the key and the new ledger. */
function callOnce(ledger: OnceLedger, call: typeof refund, result: ToolResult): { key: string; ledger: OnceLedger } {
  const issued = issueOnceKeys(ledger, 'wf-1', [call]);
  const key = issued.keys[0]!;
  return { key, ledger: settleOnceKeys(issued.ledger, [{ ...call, key, result }]) };
}

describe('once idempotency keys', () => {
  it('has the form <workflowId>/<tool>#<argsHash>/<n>', () => {
    expect(onceIdempotencyKey('wf-1', refund, 1)).toBe('wf-1/issue_refund#0123456789abcdef/1');
  });

  it('a repeat after a known outcome gets a new key: two refunds on purpose are two refunds', () => {
    const first = callOnce({}, refund, ok);
    const second = callOnce(first.ledger, refund, ok);
    expect([first.key, second.key]).toEqual([
      'wf-1/issue_refund#0123456789abcdef/1',
      'wf-1/issue_refund#0123456789abcdef/2',
    ]);
    expect(callOnce(second.ledger, refund, declined()).key).toMatch(/\/3$/);
  });

  it('a retry after an unknown outcome reuses the key, so the tool can dedupe', () => {
    const crashed = callOnce({}, refund, unknown());
    const retried = callOnce(crashed.ledger, refund, ok);
    expect(retried.key).toBe(crashed.key);
    expect(callOnce(retried.ledger, refund, ok).key).toMatch(/\/2$/); // and then a deliberate repeat is new again
  });

  it('other arguments have their own numbering', () => {
    const crashed = callOnce({}, refund, unknown());
    expect(callOnce(crashed.ledger, other, ok).key).toBe('wf-1/issue_refund#fedcba9876543210/1');
  });

  it('two identical calls in one batch get different keys; given-back keys are reused lowest first', () => {
    const batch = issueOnceKeys({}, 'wf-1', [refund, refund, refund]);
    expect(batch.keys.map((k) => k.slice(-2))).toEqual(['/1', '/2', '/3']);
    const settled = settleOnceKeys(batch.ledger, [
      { ...refund, key: batch.keys[0]!, result: ok },
      { ...refund, key: batch.keys[1]!, result: unknown() },
      { ...refund, key: batch.keys[2]!, result: unknown() },
    ]);
    expect(settled[`issue_refund#${refund.argsHash}`]).toEqual({ issued: 3, unknown: [2, 3] });
    expect(issueOnceKeys(settled, 'wf-1', [refund, refund, refund]).keys.map((k) => k.slice(-2))).toEqual([
      '/2',
      '/3',
      '/4',
    ]);
  });

  it('given-back keys settled out of order are kept lowest first, once each; a key with no number is ignored', () => {
    const batch = issueOnceKeys({}, 'wf-1', [refund, refund, refund]);
    const lost = (key: string) => ({ ...refund, key, result: unknown() });
    const settled = settleOnceKeys(batch.ledger, [
      lost(batch.keys[2]!),
      lost(batch.keys[0]!),
      lost(batch.keys[2]!),
      lost('wf-1/issue_refund#0123456789abcdef/x'),
      lost('wf-1/issue_refund#0123456789abcdef/0'),
    ]);
    expect(settled[`issue_refund#${refund.argsHash}`]).toEqual({ issued: 3, unknown: [1, 3] });
    // A key the ledger has no entry for starts one: its number counts as issued.
    expect(settleOnceKeys({}, [lost('wf-1/issue_refund#0123456789abcdef/5')])).toEqual({
      [`issue_refund#${refund.argsHash}`]: { issued: 5, unknown: [5] },
    });
  });

  it('the ledger is plain JSON and never mutated', () => {
    const ledger: OnceLedger = Object.freeze({});
    const { ledger: after } = callOnce(ledger, refund, unknown());
    expect(JSON.parse(JSON.stringify(after))).toEqual(after);
    expect(ledger).toEqual({});
  });

  it('outcomeKnown: unknown and cancelled are not known; everything else is', () => {
    expect(outcomeKnown(ok)).toBe(true);
    expect(outcomeKnown(declined())).toBe(true);
    expect(outcomeKnown(unknown())).toBe(false);
    expect(outcomeKnown(errorResult({ name: 'x', toolCallId: '1' }, toolError('cancelled', 'stop')))).toBe(false);
  });
});
