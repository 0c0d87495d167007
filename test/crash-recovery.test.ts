/**
 * At-most-once across a crash, on a real dev server with a worker in its own process: the worker
 * is killed with SIGKILL after a `once` tool paid but before it reported; a replacement worker
 * picks the run up within seconds, the run asks a person whether the payment went out, the model
 * pays again under the same idempotency key, and the tool (deduping by key) does not pay twice.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { answerClarificationUpdate, stateQuery } from '../workflows/contract/index.js';
import { waitFor } from './support/runs.js';
import { connectClient } from './support/temporal.js';
import { startWorkerProcess } from './support/worker-process.js';

let client: Client;
let dir: string;
const workers: ChildProcess[] = [];
beforeAll(async () => {
  client = await connectClient();
  dir = await mkdtemp(join(tmpdir(), 'cairn-crash-'));
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await client?.connection.close();
  await rm(dir, { recursive: true, force: true });
});

/** A worker process on `taskQueue`; resolves once it polls. */
function startWorker(taskQueue: string, ledger: string, slowFirstPaymentMs: number): Promise<ChildProcess> {
  return startWorkerProcess(
    'crash-worker.ts',
    { TASK_QUEUE: taskQueue, LEDGER: ledger, SLOW_FIRST_PAYMENT_MS: String(slowFirstPaymentMs) },
    workers,
  );
}

const payments = async (ledger: string) =>
  (await readFile(ledger, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { key: string; orderId: string; pid: number });

describe('a worker killed mid-run', () => {
  it('causes no second payment, and a replacement worker picks the run up within seconds', {
    timeout: 120_000,
  }, async () => {
    const taskQueue = `crash-${randomUUID()}`;
    const ledger = join(dir, `${taskQueue}.jsonl`);
    const first = await startWorker(taskQueue, ledger, 60_000);
    const handle = await client.workflow.start('payoutAgentRun', {
      taskQueue,
      workflowId: `crash-${randomUUID()}`,
      args: [{ agent: 'payout', prompt: 'Pay A-1 out 30.', model: 'scripted:payout' }],
    });

    // The payment went out; the worker is still "working" on it when it dies.
    await waitFor(async () => ((await payments(ledger)).length > 0 ? true : undefined), 'the first payment');
    first.kill('SIGKILL');
    const killedAt = Date.now();
    await startWorker(taskQueue, ledger, 0);

    const state = await waitFor(
      async () => {
        const s = await handle.query(stateQuery).catch(() => undefined);
        return s?.phase === 'awaiting_clarification' ? s : undefined;
      },
      'the question about the unknown outcome',
      60_000,
    );
    const pickedUpMs = Date.now() - killedAt;
    console.log(`replacement worker had the run asking about the unknown outcome ${pickedUpMs} ms after the kill`);
    expect(pickedUpMs).toBeLessThan(30_000);
    expect(state.clarification?.question).toMatch(
      /^pay_out \(call 1\.1, \{"orderId":"A-1","amount":30\}\) stopped before it reported a result/,
    );
    expect(state.lastErrors.at(-1)).toMatchObject({ tool: 'pay_out', code: 'outcome_unknown' });

    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'Not sure: check it.' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'Paid A-1 out once.' });

    // Two calls, one idempotency key (given back after the unknown outcome), one payment.
    const paid = await payments(ledger);
    expect(paid.filter((p) => p.orderId === 'A-1')).toHaveLength(1);
    expect(paid[0]!.key).toBe(`${handle.workflowId}/pay_out#${paid[0]!.key.split('#')[1]}`);
    expect(paid[0]!.key.endsWith('/1')).toBe(true);
  });

  it('loses no run when it dies in a child run: the child and its parent go on, the payout happens once', {
    timeout: 120_000,
  }, async () => {
    const taskQueue = `crash-${randomUUID()}`;
    const ledger = join(dir, `${taskQueue}.jsonl`);
    const first = await startWorker(taskQueue, ledger, 60_000);
    const handle = await client.workflow.start('payoutDeskAgentRun', {
      taskQueue,
      workflowId: `crash-desk-${randomUUID()}`,
      args: [{ agent: 'payout_desk', prompt: 'Pay A-1 out 30.', model: 'scripted:payout' }],
    });

    await waitFor(async () => ((await payments(ledger)).length > 0 ? true : undefined), 'the payment in the child run');
    first.kill('SIGKILL');
    await startWorker(taskQueue, ledger, 0);

    // The child's question about the unknown outcome surfaces in the parent, answered there.
    const state = await waitFor(
      async () => {
        const s = await handle.query(stateQuery).catch(() => undefined);
        return s?.phase === 'awaiting_clarification' ? s : undefined;
      },
      "the child's question, in the parent",
      60_000,
    );
    expect(state.clarification).toMatchObject({ child: { agent: 'payout', workflowId: `${handle.workflowId}/1.1` } });
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'Not sure: check it.' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'The payout agent paid A-1 out once.' });
    expect(await client.workflow.getHandle(`${handle.workflowId}/1.1`).result()).toMatchObject({
      answer: 'Paid A-1 out once.',
    });
    expect(await payments(ledger)).toHaveLength(1);
  });
});
