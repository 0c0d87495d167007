/**
 * At-most-once without a person, from outside, on a real dev server: 30 runs of a `once` tool with
 * a `reconcile`, two workers in their own processes, and one of them SIGKILLed — or SIGSTOPped
 * and resumed after its attempts timed out — while effects are in flight. Every run completes,
 * no effect happens twice, nobody is asked, and a stopped worker that resumes carries out no
 * effect its attempt no longer owned (the fence, activities/attempt-fence.ts). The stop lasts
 * CAIRN_STOP_MS (default 24 s: three times the tool's 8 s heartbeat timeout; the issue's 90 s with
 * CAIRN_STOP_MS=90000). Prints recovery times and counts.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { stateQuery } from '../workflows/contract/index.js';
import { answerIfAsked, events as historyEvents, scheduled, waitFor } from './support/runs.js';
import { connectClient } from './support/temporal.js';
import { startWorkerProcess } from './support/worker-process.js';
import { recordHistory } from './support/histories.js';

// CAIRN_TRIAL_RUNS for a larger trial (the issue measured 300 runs at load 17–31).
const RUNS = Number(process.env.CAIRN_TRIAL_RUNS ?? 30);
const STOP_MS = Number(process.env.CAIRN_STOP_MS ?? 24_000);

let client: Client;
let dir: string;
const workers: ChildProcess[] = [];
beforeAll(async () => {
  client = await connectClient();
  dir = await mkdtemp(join(tmpdir(), 'cairn-reconcile-'));
});
afterAll(async () => {
  for (const w of workers) {
    w.kill('SIGCONT');
    w.kill('SIGKILL');
  }
  await client?.connection.close();
  await rm(dir, { recursive: true, force: true });
});

interface LedgerEvent {
  readonly event: 'start' | 'fenced' | 'confirmed' | 'effect' | 'deduped' | 'end' | 'reconcile';
  readonly key: string;
  readonly pid: number;
  readonly at: number;
}

const TERMINAL = new Set(['fenced', 'deduped', 'end']);

async function trial(kind: 'SIGKILL' | 'SIGSTOP') {
  const taskQueue = `reconcile-${randomUUID()}`;
  const ledgerDir = await mkdtemp(join(dir, 'ledger-'));
  const eventsPath = join(dir, `${taskQueue}.jsonl`);
  const readEvents = async () =>
    (await readFile(eventsPath, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LedgerEvent);
  const settings = {
    TASK_QUEUE: taskQueue,
    LEDGER_DIR: ledgerDir,
    EVENTS: eventsPath,
    PRE_MS: '1500',
    POST_MS: '4000',
  };
  const [a] = await Promise.all([
    startWorkerProcess('ledger-worker.ts', settings, workers),
    startWorkerProcess('ledger-worker.ts', settings, workers),
  ]);
  const handles = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      client.workflow.start('ledgerAgentRun', {
        taskQueue,
        workflowId: `ledger-${kind}-${i}-${randomUUID()}`,
        args: [{ agent: 'ledger', prompt: `Append E-${i}.`, model: 'scripted:ledger' }],
      }),
    ),
  );

  // Worker A has effects done but not reported, and attempts still before their effect.
  const mine = (events: readonly LedgerEvent[], what: LedgerEvent['event']) =>
    new Set(events.filter((e) => e.pid === a.pid && e.event === what).map((e) => e.key));
  await waitFor(
    async () => {
      const events = await readEvents();
      const [started, confirmed, effected, ended] = (['start', 'confirmed', 'effect', 'end'] as const).map((what) =>
        mine(events, what),
      );
      const unreported = [...effected!].filter((k) => !ended!.has(k)).length;
      const before = [...started!].filter((k) => !confirmed!.has(k)).length;
      return unreported >= 2 && before >= 1 ? true : undefined;
    },
    'effects in flight on worker A',
    120_000,
  );
  const struckAt = Date.now();
  a.kill(kind);

  // Every run completes; a run that asks a person is counted (and answered, so the trial ends).
  const questions = new Set<string>();
  const done = new Set<string>();
  for (const h of handles)
    void h.result().then(
      () => done.add(h.workflowId),
      () => done.add(h.workflowId),
    );
  const resumeAt = kind === 'SIGSTOP' ? struckAt + STOP_MS : undefined;
  let resumed = false;
  await waitFor(
    async () => {
      if (resumeAt !== undefined && !resumed && Date.now() >= resumeAt) (resumed = true), a.kill('SIGCONT');
      await Promise.all(handles.filter((h) => !done.has(h.workflowId)).map((h) => answerIfAsked(h, questions)));
      return done.size === RUNS ? true : undefined;
    },
    `${RUNS} runs to complete`,
    240_000,
  );
  const recoveryMs = Date.now() - struckAt;
  if (resumeAt !== undefined && !resumed) {
    await new Promise((r) => setTimeout(r, Math.max(0, resumeAt - Date.now())));
    a.kill('SIGCONT');
  }
  const results = await Promise.all(handles.map((h) => h.result()));
  expect(results.every((r) => r.answer === 'Appended.')).toBe(true);

  // A resumed worker finishes what it held: every attempt it started ends (fenced, deduped or done).
  const events =
    kind === 'SIGSTOP'
      ? await waitFor(
          async () => {
            const all = await readEvents();
            const open = [...mine(all, 'start')].filter(
              (k) => !all.some((e) => e.pid === a.pid && e.key === k && TERMINAL.has(e.event)),
            );
            return open.length === 0 ? all : undefined;
          },
          'the resumed worker to finish its attempts',
          60_000,
        )
      : await readEvents();

  const files = await readdir(ledgerDir);
  const perRun = handles.map((h) => files.filter((f) => decodeURIComponent(f).startsWith(`${h.workflowId}/`)).length);
  // From the histories (a Query would replay 30 runs at once on a loaded machine).
  const reconciled = (
    await Promise.all(handles.map(async (h) => scheduled(await historyEvents(h)).includes('reconcileTool')))
  ).filter(Boolean).length;
  // Attempts A had started when struck: all timed out while it was stopped (the stop is many heartbeat timeouts).
  const struck = new Set(
    events.filter((e) => e.pid === a.pid && e.event === 'start' && e.at < struckAt).map((e) => e.key),
  );
  const lateEvents = events.filter((e) => e.pid === a.pid && e.at > struckAt && struck.has(e.key));
  const late = lateEvents.filter((e) => e.event === 'effect');
  // Reaching the ledger at all after the attempt timed out (an effect, or one the key deduped): what the fence prevents.
  const reached = lateEvents.filter((e) => e.event === 'effect' || e.event === 'deduped').length;
  const fenced = events.filter((e) => e.pid === a.pid && e.event === 'fenced' && e.at > struckAt).length;
  // Only an attempt the server confirmed as current (its answer may still have been on the way when
  // the worker stopped) may reach the ledger late: the window docs/tools.md measures. Any other is the fence failing.
  const unfenced = lateEvents.filter(
    (e) =>
      (e.event === 'effect' || e.event === 'deduped') &&
      !events.some((c) => c.event === 'confirmed' && c.pid === e.pid && c.key === e.key && c.at <= e.at),
  ).length;
  const windows = events.flatMap((e) => {
    if (e.event !== 'effect') return [];
    const confirmed = events.find((c) => c.event === 'confirmed' && c.pid === e.pid && c.key === e.key);
    return confirmed ? [e.at - confirmed.at] : [];
  });
  console.log(
    `${kind}${kind === 'SIGSTOP' ? ` ${STOP_MS} ms` : ''}: ${results.length}/${RUNS} runs complete ${recoveryMs} ms after the ${kind}; ` +
      `${reconciled} reconciled, ${questions.size} question(s) to a person, ${perRun.filter((n) => n > 1).length} duplicate effect(s), ` +
      `${late.length} effect(s) after the attempt was timed out (${reached} reached the ledger at all), ${fenced} late attempt(s) fenced; ` +
      `confirm-to-effect window max ${Math.max(0, ...windows)} ms over ${windows.length} effects`,
  );
  expect(perRun).toEqual(handles.map(() => 1));
  // A run that asked: what it scheduled and how each activity ended, to tell why.
  const why = await Promise.all(
    handles
      .filter((h) => [...questions].some((q) => q.startsWith(`${h.workflowId}/`)))
      .map(async (h) => `${h.workflowId}: ${activityStory(await historyEvents(h)).join(', ')}`),
  );
  expect([...questions], why.join('\n')).toEqual([]);
  expect(reconciled).toBeGreaterThan(0);
  return { late: late.length, reached, fenced, unfenced };
}

/** Each activity of a history and how it ended: `runOnceTool:timed_out`, `reconcileTool:completed`… */
function activityStory(history: Awaited<ReturnType<typeof historyEvents>>): string[] {
  const types = new Map<string, string>();
  const story: string[] = [];
  for (const e of history) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes)
      types.set(id, e.activityTaskScheduledEventAttributes.activityType!.name!);
    const ended = [
      ['completed', e.activityTaskCompletedEventAttributes],
      ['failed', e.activityTaskFailedEventAttributes],
      ['timed_out', e.activityTaskTimedOutEventAttributes],
      ['canceled', e.activityTaskCanceledEventAttributes],
    ] as const;
    for (const [how, attrs] of ended)
      if (attrs) story.push(`${types.get(String(attrs.scheduledEventId)) ?? '?'}:${how}`);
  }
  return story;
}

describe('a once tool with reconcile, one attempt crashed', () => {
  it('records the effect that happened, runs again under the same key what did not, and asks nobody', {
    timeout: 300_000,
  }, async () => {
    const taskQueue = `reconcile-${randomUUID()}`;
    const ledgerDir = await mkdtemp(join(dir, 'ledger-'));
    await startWorkerProcess(
      'ledger-worker.ts',
      { TASK_QUEUE: taskQueue, LEDGER_DIR: ledgerDir, EVENTS: join(dir, `${taskQueue}.jsonl`) },
      workers,
    );
    const run = async (entry: string) => {
      const handle = await client.workflow.start('ledgerAgentRun', {
        taskQueue,
        workflowId: `reconcile-${entry}`,
        args: [{ agent: 'ledger', prompt: `Append ${entry}.`, model: 'scripted:ledger' }],
      });
      expect(await handle.result()).toMatchObject({ answer: 'Appended.' });
      const files = (await readdir(ledgerDir))
        .map(decodeURIComponent)
        .filter((f) => f.startsWith(`${handle.workflowId}/`));
      return {
        handle,
        activities: scheduled(await historyEvents(handle)).filter((a) => a !== 'callModel'),
        files,
        state: await handle.query(stateQuery),
      };
    };
    const after = await run('crash-after');
    expect(after.activities).toEqual(['runOnceTool', 'reconcileTool']);
    expect(after.files).toHaveLength(1);
    expect(after.state.steps.map((s) => s.action)).toContain('reconcile');
    expect(after.state.lastErrors).toEqual([]);
    const before = await run('crash-before');
    expect(before.activities).toEqual(['runOnceTool', 'reconcileTool', 'runOnceTool']);
    expect(before.files).toHaveLength(1);
    await recordHistory(after.handle, 'reconcile-happened');
    await recordHistory(before.handle, 'reconcile-not-happened');
  });
});

describe('a once call whose worker took it and never began it (a busy worker)', () => {
  it.each([
    ['without reconcile', 'ledgerPlainAgentRun', 'ledger_plain'],
    ['with reconcile', 'ledgerAgentRun', 'ledger'],
  ])(
    '%s: its attempt times out, the call runs again under its key, nobody is asked, one effect',
    {
      timeout: 300_000,
    },
    async (_, workflow, agent) => {
      const taskQueue = `stall-${randomUUID()}`;
      const ledgerDir = await mkdtemp(join(dir, 'ledger-'));
      const eventsPath = join(dir, `${taskQueue}.jsonl`);
      await startWorkerProcess(
        'ledger-worker.ts',
        { TASK_QUEUE: taskQueue, LEDGER_DIR: ledgerDir, EVENTS: eventsPath, STALL_MS: '14000' },
        workers,
      );
      const handle = await client.workflow.start(workflow, {
        taskQueue,
        workflowId: `stall-${agent}-${randomUUID()}`,
        args: [{ agent, prompt: 'Append stall-1.', model: 'scripted:ledger' }],
      });
      const questions = new Set<string>();
      let ended = false;
      void handle.result().finally(() => (ended = true));
      await waitFor(
        async () => {
          if (ended) return true;
          await answerIfAsked(handle, questions);
          return undefined;
        },
        'the run to end',
        240_000,
      );
      expect(await handle.result()).toMatchObject({ answer: 'Appended.' });
      const history = await historyEvents(handle);
      const timedOut = history.filter((e) => e.activityTaskTimedOutEventAttributes).length;
      // The stalled attempt timed out (the stall is longer than the 8 s heartbeat timeout) and ran
      // again; nothing was reconciled or asked, and the late attempt, once awake, was fenced.
      expect(timedOut).toBe(1);
      expect(scheduled(history).filter((a) => a !== 'callModel')).toEqual(['runOnceTool', 'runOnceTool']);
      expect([...questions]).toEqual([]);
      const files = (await readdir(ledgerDir)).map(decodeURIComponent);
      expect(files.filter((f) => f.startsWith(`${handle.workflowId}/`))).toHaveLength(1);
      const events = await waitFor(
        async () => {
          const all = (await readFile(eventsPath, 'utf8').catch(() => ''))
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { event: string });
          return all.some((e) => e.event === 'refused') ? all : undefined;
        },
        'the stalled attempt to wake and be refused',
        60_000,
      );
      // Only the attempt that ran again reached execute.
      expect(events.filter((e) => e.event === 'start')).toHaveLength(1);
      expect(events.filter((e) => e.event === 'effect')).toHaveLength(1);
    },
  );
});

describe('a once tool with reconcile, its worker struck while effects are in flight', () => {
  it('SIGKILL: every run completes, no effect twice, nobody asked', { timeout: 420_000 }, async () => {
    await trial('SIGKILL');
  });

  it('SIGSTOP, then SIGCONT after the attempts timed out: no effect twice, nobody asked, the late worker carries out nothing', {
    timeout: 420_000 + STOP_MS,
  }, async () => {
    // A late attempt stopped between its confirmation and its effect still reaches the ledger (the
    // window docs/tools.md measures): whichever of it and the retry writes first, the key keeps the
    // effect single (checked in trial). Every other late attempt is fenced.
    const { unfenced } = await trial('SIGSTOP');
    expect(unfenced).toBe(0);
  });
});
