/**
 * Durable workspaces, from outside, on a real dev server with workers in their own processes,
 * snapshots in Redis and commands in the real bubblewrap sandbox (docs/workspaces.md):
 * - the coder example fixes its failing test, waits for a review of a command that deletes files
 *   holding no directory on any worker, is reviewed over HTTP (`GET /runs/:id`, `POST
 *   /runs/:id/reviews/:toolCallId`), and finishes on another worker after the first was
 *   SIGKILLed, with the workspace the model was told about;
 * - a worker SIGKILLed mid-command loses nothing reported: the command runs again on another
 *   worker from the snapshot it started from, and its half-done changes are gone;
 * - every way out of the sandbox is a structured result, and the run and the worker carry on.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { transcriptQuery, type AgentRunResult, type RunState } from '../workflows/contract/index.js';
import { redisRunStore } from '../activities/storage/redis-run-store.js';
import { workspaceCheckouts } from '../activities/workspace/workspace-checkouts.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../shared/workspace/workspace-config.js';
import type { RunStore } from '../shared/storage/run-store.js';
import { awaiting, waitFor } from './support/runs.js';
import { serve, type Served } from './support/http.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { coderAgent } from '../examples/coder/agent.js';
import { FIXED_SUM } from './fixtures/workspace-agents.js';
import { connectClient } from './support/temporal.js';
import { startWorkerProcess } from './support/worker-process.js';

const SECRET = `canary-${randomUUID()}`;
let client: Client;
let dir: string;
let store: RunStore;
let http: Served;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  client = await connectClient();
  dir = await mkdtemp(join(tmpdir(), 'cairn-workspace-test-'));
  // The sandbox runs as a user of its own: it must be able to pass through to the working copies.
  await chmod(dir, 0o711);
  store = redisRunStore();
  http = await serve(createCairnHttpHandler({ client: new CairnClient({ client }), agents: [coderAgent] }));
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await http?.close();
  await client?.connection.close();
  await store?.close?.();
  await rm(dir, { recursive: true, force: true });
});

/** A worker process with its own working-copy directory. */
async function worker(taskQueue: string, name: string, idleMs = 30_000) {
  const workDir = join(dir, `${taskQueue}-${name}`);
  const process = await startWorkerProcess(
    'workspace-worker.ts',
    { TASK_QUEUE: taskQueue, WORK_DIR: workDir, IDLE_MS: String(idleMs), CAIRN_TEST_SECRET: SECRET },
    workers,
  );
  return { process, workDir };
}

/** Working copies a worker holds now. */
const copies = async (workDir: string): Promise<string[]> => readdir(join(workDir, 'copies')).catch((): string[] => []);

/** Every file of a snapshot, read back from the shared store as any worker would. */
async function filesOf(digest: string): Promise<Map<string, string>> {
  const { readFile } = await import('node:fs/promises');
  const checkouts = workspaceCheckouts({ store, directory: join(dir, `reader-${randomUUID()}`) });
  const checkout = await checkouts.checkout({
    digest,
    from: { empty: true },
    limits: DEFAULT_WORKSPACE_LIMITS,
    network: false,
  });
  const files = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(join(checkout.root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else files.set(path, await readFile(join(checkout.root, path), 'utf8'));
    }
  };
  await walk('');
  await checkout.discard();
  await checkouts.close();
  return files;
}

function start(taskQueue: string, agent: string, prompt: string, more: object = {}): Promise<WorkflowHandle> {
  return client.workflow.start('workspaceAgentRun', {
    taskQueue,
    workflowId: `workspace-${agent}-${randomUUID()}`,
    args: [{ agent, prompt, ...more }],
  });
}

/** What the model read of each tool call, in order, from the run's transcript: a result, or `{ error }`. */
async function toolResults(handle: WorkflowHandle): Promise<{ name: string; content: Record<string, unknown> }[]> {
  const messages = await handle.query(transcriptQuery, {});
  return messages.flatMap((m) =>
    m.role === 'tool' ? [{ name: m.name, content: m.content as Record<string, unknown> }] : [],
  );
}
const failedWith = (code: string) => ({ content: { error: expect.objectContaining({ code }) } });

describe('a run with a workspace', () => {
  it('fixes the failing test, waits for a review holding no directory, and finishes on another worker after a SIGKILL', async () => {
    const taskQueue = `workspace-${randomUUID()}`;
    const a = await worker(taskQueue, 'a', 300);
    const handle = await start(taskQueue, 'coder', 'The tests of this project fail. Fix them.');
    // A reviewer's page reads the run over HTTP, as the inbox does.
    const read = async (): Promise<RunState> =>
      ((await (await fetch(`${http.url}/runs/${handle.workflowId}`)).json()) as { state: RunState }).state;
    await awaiting(handle, 'awaiting_review');
    const waiting = await read();
    expect(waiting.reviews).toEqual([
      expect.objectContaining({ name: 'run_command', args: { command: 'rm -f notes.tmp' } }),
    ]);
    // The model was told the tests pass on this snapshot; nothing of it is held by a worker now.
    expect(waiting.workspace).toMatch(/^sha256:[0-9a-f]{64}$/);
    await waitFor(async () => ((await copies(a.workDir)).length === 0 ? true : undefined), 'no working copy held');
    const before = await filesOf(waiting.workspace!);
    expect(before.get('sum.js')).toContain('let i = 0;');
    expect(before.has('notes.tmp')).toBe(true);

    // The worker dies while the run waits; another, with nothing of the run on its disk, resumes it.
    a.process.kill('SIGKILL');
    const b = await worker(taskQueue, 'b');
    expect(await copies(b.workDir)).toEqual([]);
    const review = waiting.reviews[0]!;
    const decided = await fetch(`${http.url}/runs/${handle.workflowId}/reviews/${review.toolCallId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ argsHash: review.argsHash, decision: { type: 'accept' } }),
    });
    expect(decided.status).toBeLessThan(300);
    const result: AgentRunResult = await handle.result();
    expect(result.answer).toContain('Fixed total()');
    const after = await filesOf(result.workspace!);
    expect(after.has('notes.tmp')).toBe(false);
    expect(after.get('sum.js')).toBe(before.get('sum.js'));
    expect(after.get('sum.test.js')).toBe(before.get('sum.test.js'));
    // The tests ran in the sandbox: failing first, passing after the patch.
    const runs = (await toolResults(handle)).filter((r) => r.name === 'run_command');
    expect(runs.map((r) => r.content.exitCode)).toEqual([1, 0, 0]);
  }, 180_000);

  it('runs a command again from its starting snapshot on another worker when its worker is SIGKILLed mid-command, and carries the snapshot across continue-as-new', async () => {
    const taskQueue = `workspace-${randomUUID()}`;
    const a = await worker(taskQueue, 'a');
    // It continues as new after each turn: the next run reads the workspace by the digest it was handed.
    const handle = await start(taskQueue, 'builder', 'Build it.', { continueAsNewAfterTurns: 1 });
    // The command has begun on worker a (its marker is in a's working copy): kill a there.
    await waitFor(async () => {
      for (const copy of await copies(a.workDir))
        if ((await readdir(join(a.workDir, 'copies', copy)).catch((): string[] => [])).includes('began')) return true;
      return undefined;
    }, 'the command to begin');
    a.process.kill('SIGKILL');
    await worker(taskQueue, 'b');
    const result: AgentRunResult = await handle.result();
    expect(result.answer).toBe('Built.');
    expect(result.generation).toBeGreaterThanOrEqual(1);
    // One start, one done: the killed attempt's "start" was never committed.
    const files = await filesOf(result.workspace!);
    expect(files.get('build.log')).toBe('start\ndone\n');
    const read = (await toolResults(handle)).find((r) => r.name === 'read_file');
    expect(read?.content).toMatchObject({ content: 'start\ndone' });
  }, 180_000);

  it("shows a held write's reviewer the diff against the run's snapshot, over HTTP", async () => {
    const taskQueue = `workspace-${randomUUID()}`;
    await worker(taskQueue, 'a');
    const handle = await start(taskQueue, 'editor', 'Fix sum.js.');
    await awaiting(handle, 'awaiting_review');
    // The diff comes from an activity after the review is held: wait for it, as a page refreshing would.
    const state = await waitFor(async () => {
      const read = (await (await fetch(`${http.url}/runs/${handle.workflowId}`)).json()) as { state: RunState };
      return read.state.reviews[0]?.change === undefined ? undefined : read.state;
    }, 'the review to show its change');
    const change = state.reviews[0]!.change!;
    expect(change).toContain('--- a/sum.js');
    expect(change).toContain('-  for (let i = 1; i < prices.length; i++) sum += prices[i];');
    expect(change).toContain('+  for (let i = 0; i < prices.length; i++) sum += prices[i];');
    expect(change).not.toContain('+  let sum = 0;'); // only what changes, with its context
    const review = state.reviews[0]!;
    await fetch(`${http.url}/runs/${handle.workflowId}/reviews/${review.toolCallId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ argsHash: review.argsHash, decision: { type: 'accept' } }),
    });
    const result: AgentRunResult = await handle.result();
    expect((await filesOf(result.workspace!)).get('sum.js')).toBe(FIXED_SUM);

    // Another run starts from where this one finished: its write changes nothing, and says so.
    const next = await start(taskQueue, 'editor', 'Fix sum.js again.', { workspace: { snapshot: result.workspace } });
    await awaiting(next, 'awaiting_review');
    const again = await waitFor(async () => {
      const read = (await (await fetch(`${http.url}/runs/${next.workflowId}`)).json()) as { state: RunState };
      return read.state.reviews[0]?.change;
    }, 'the second review to show its change');
    expect(again).toBe('sum.js would not change.');
  }, 180_000);

  it('contains every way out as a structured result, and the run and its worker carry on', async () => {
    const taskQueue = `workspace-${randomUUID()}`;
    await worker(taskQueue, 'a');
    const handle = await start(taskQueue, 'intruder', 'Look around.');
    const result: AgentRunResult = await handle.result();
    expect(result.answer).toBe('Looked around.');
    const results = await toolResults(handle);
    const [
      dotDot,
      absolute,
      links,
      throughLink,
      writeThroughLink,
      environment,
      forkBomb,
      endless,
      flood,
      tooBig,
      network,
      badPatch,
      listing,
    ] = results;
    const refused = failedWith('invalid_arguments');
    expect(dotDot).toMatchObject(refused);
    expect(absolute).toMatchObject(refused);
    expect(links?.content).toMatchObject({ exitCode: 0 });
    expect(throughLink).toMatchObject(refused);
    expect(writeThroughLink).toMatchObject(refused);
    // The worker's environment (its secret) is not the sandbox's.
    expect(environment?.content).toMatchObject({ exitCode: expect.any(Number) });
    expect(JSON.stringify(environment)).not.toContain(SECRET);
    // A fork bomb hits the process limit; the command ends and the worker carries on.
    expect(forkBomb?.content).toMatchObject({ exitCode: expect.any(Number) });
    expect(endless).toMatchObject(failedWith('timeout'));
    expect(flood?.content).toHaveProperty('error');
    expect(JSON.stringify(flood).length).toBeLessThan(64 * 1024);
    // Past the file size limit the write fails inside the sandbox.
    expect(tooBig?.content).toMatchObject({ exitCode: expect.any(Number) });
    expect(JSON.stringify(tooBig)).not.toContain('exit=0');
    expect(network?.content).toMatchObject({ exitCode: 3 });
    expect(badPatch).toMatchObject(refused);
    expect(listing?.content).toHaveProperty('entries');
    // Nothing escaped to the worker's /tmp.
    const { existsSync } = await import('node:fs');
    expect(existsSync('/tmp/escaped')).toBe(false);
  }, 180_000);
});
