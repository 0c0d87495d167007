import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../shared/agent/define-agent.js';
import { defineTool } from '../../shared/tools/define-tool.js';
import { testAgent } from '../../test/fixtures/agents.js';
import { loadCases, schemaMisfits } from './eval-cases.js';
import { caseErrors } from './eval-input-error.js';
import { LaneRun } from './lane-run.js';

const HISTORIES = join(import.meta.dirname, '../../test/histories');
const load = (agent = testAgent, files: string[] = []) =>
  loadCases({ histories: files.map((f) => join(HISTORIES, f)) }, agent, { baseDir: HISTORIES });

describe('loadCases', () => {
  it('reads the recorded histories: tools with their hashes, answers, reviews, back-offs', async () => {
    const [rateLimited, clarified, reviewed] = await load(testAgent, [
      'backoff-rate-limited.json',
      'clarification-update.json',
      'review-accept.json',
    ]);
    expect(rateLimited!.error).toBeUndefined();
    expect(rateLimited!.recording!.toolRuns.map((r) => r.name)).toEqual([
      'track_shipment',
      'track_shipment',
      'track_shipment',
    ]);
    expect(rateLimited!.recording!.backOffs).toBe(2);
    expect(clarified!.recording!.answers).toEqual([{ id: 'q1', answer: 'afternoon please' }]);
    expect(reviewed!.recording!.reviews.map((r) => [r.name, r.argsHash, r.decision])).toEqual([
      ['issue_refund', 'fe51622f9a7cbf29', { type: 'accept' }],
      ['issue_refund', 'c49ccb5d3f1fa53e', { type: 'reject' }],
    ]);
  });

  it('makes each history that cannot be a case an error of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-cases-'));
    await writeFile(join(dir, 'a-corrupt.json'), '{"events": [');
    await writeFile(join(dir, 'b-empty.json'), '{"events": []}');
    const withoutDelivery = defineAgent({
      ...testAgent,
      tools: testAgent.tools.filter((t) => t.name !== 'schedule_redelivery'),
    });
    const cases = await loadCases(
      {
        histories: [
          dir,
          join(HISTORIES, 'agent-tool-child.json'),
          join(HISTORIES, 'clarification-update.json'),
          join(dir, 'missing.json'),
        ],
      },
      withoutDelivery,
      { baseDir: dir },
    );
    expect(cases.map((c) => c.error?.code)).toEqual([
      'unreadable',
      'unreadable',
      'other_agent',
      'unknown_tool',
      'unreadable',
    ]);
    expect(cases[3]!.error!.message).toMatch(
      /called schedule_redelivery \(call 1\.1\), which agent "test" no longer has/,
    );
  });

  it('names a run continued as new, which it does not follow', async () => {
    const cases = await load(testAgent, ['continue-as-new-first-run.json', 'continue-as-new-last-run.json']);
    expect(cases.map((c) => c.error?.code)).toEqual(['continued_as_new', 'continued_as_new']);
  });

  it('names a run that did not finish on its own: cancelled, or failed', async () => {
    const cases = await load(testAgent, ['cancel-while-paused.json', 'model-misconfigured-fails.json']);
    expect(cases.map((c) => c.error?.code)).toEqual(['did_not_finish', 'did_not_finish']);
    expect(cases[0]!.error!.message).toBe('This run was cancelled: there is no end to compare a replay with.');
    expect(cases[1]!.error!.message).toMatch(/^This run failed \(the model cannot be used/);
  });

  it('reads the budget decisions people took', async () => {
    const [kase] = await load(testAgent, ['budget-extended.json']);
    expect(kase!.recording!.budgets).toEqual([{ id: 'b1', decision: { type: 'extend', costUsd: 0.05 } }]);
  });

  it('names a run recorded before a tool changed its schema', async () => {
    const stricter = defineTool({
      name: 'schedule_redelivery',
      description: 'Schedule a redelivery.',
      input: z.object({ orderId: z.number(), window: z.enum(['morning', 'afternoon']) }),
      execute: () => ({}),
    });
    const changed = defineAgent({
      ...testAgent,
      tools: [...testAgent.tools.filter((t) => t.name !== 'schedule_redelivery'), stricter],
    });
    const [kase] = await load(changed, ['clarification-update.json']);
    expect(kase!.error).toMatchObject({
      code: 'schema_changed',
      message: expect.stringMatching(/no longer fit its schema \(orderId: .*expected number/),
    });
  });

  it("names each recorded call that no longer fits a candidate's narrowed schema, by call and field", async () => {
    const [kase] = await load(testAgent, ['review-accept.json']);
    const narrowed = defineTool({
      name: 'issue_refund',
      description: 'Refund an order.',
      input: z.object({ orderId: z.string().regex(/^B-/), amount: z.number().max(10) }),
      sideEffects: 'once',
      execute: () => ({}),
    });
    const misfits = schemaMisfits(kase!.recording, new Map([['issue_refund', narrowed]]));
    const ids = kase!.recording!.toolRuns.filter((run) => run.name === 'issue_refund').map((run) => run.toolCallId);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      expect(misfits).toContainEqual(
        expect.stringMatching(new RegExp(`^call ${id.replace('.', '\\.')} of issue_refund: amount: .*10`)),
      );
      expect(misfits).toContainEqual(
        expect.stringMatching(new RegExp(`^call ${id.replace('.', '\\.')} of issue_refund: orderId: `)),
      );
    }
    // The agent's own tools accept what they recorded.
    expect(schemaMisfits(kase!.recording, new Map(testAgent.tools.map((t) => [t.name, t])))).toEqual([]);
  });

  it('says in one line which files cannot be cases, naming each', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-cases-'));
    await writeFile(join(dir, 'a-corrupt.json'), '{"events": [\n  {"eventId": "1",\n  oops');
    const cases = await loadCases(
      { histories: [join(dir, 'a-corrupt.json'), join(HISTORIES, 'agent-tool-child.json'), join(dir, 'missing.json')] },
      testAgent,
      { baseDir: dir },
    );
    const message = caseErrors(cases)!.message;
    expect(message).not.toMatch(/\n/);
    expect(message).toMatch(/^3 cases cannot be evaluated: /);
    expect(message).toMatch(/a-corrupt\.json.*line 3/);
    expect(message).toMatch(/agent-tool-child\.json: This run is of agent "helper"/);
    expect(message).toMatch(/missing\.json does not exist/);
    expect(message).toMatch(/--allow-errors/);
    expect(caseErrors(cases.slice(1, 2))!.message).toMatch(/^\S*agent-tool-child\.json: This run is of agent/);
    expect(caseErrors(await load(testAgent, ['review-accept.json']))).toBeUndefined();
  });

  it('takes dataset cases as they are, and keeps ids unique', async () => {
    const cases = await loadCases(
      {
        histories: [join(HISTORIES, 'skeleton-tool-call.json'), join(HISTORIES, 'skeleton-tool-call.json')],
        dataset: [{ id: 'd1', prompt: 'hi' }],
      },
      testAgent,
      { baseDir: HISTORIES },
    );
    expect(cases.map((c) => c.id)).toEqual([cases[0]!.id, `${cases[0]!.id}~2`, 'd1']);
    expect(cases[2]!.dataset).toEqual({ id: 'd1', prompt: 'hi' });
  });
});

describe('LaneRun', () => {
  it('serves repeats of a call in recorded order, the nearest call of a tool, and live runs of read-only tools only', async () => {
    const [kase] = await load(testAgent, ['backoff-rate-limited.json']);
    const tools = new Map(testAgent.tools.map((t) => [t.name, t]));
    const lane = new LaneRun('c', 'candidate', kase!.recording, 'live', tools);
    const statuses = [1, 2, 3, 4].map(
      () => (lane.recorded('track_shipment', { orderId: 'A-1' })!.result as { status: string }).status,
    );
    expect(statuses).toEqual(['error', 'error', 'ok', 'ok']);
    expect(lane.recorded('track_shipment', { orderId: 'A-2' })).toBeUndefined();
    expect(lane.nearest('track_shipment', { orderId: 'A-2' })!.mismatch).toBe(
      'served the recorded call with other orderId',
    );
    expect(lane.nearest('lookup_order', { orderId: 'A-2' })).toBeUndefined();
    expect(lane.mayRunLive('lookup_order')).toBe(true);
    expect(lane.mayRunLive('issue_refund')).toBe(false);
    expect(new LaneRun('c', 'candidate', kase!.recording, 'lenient', tools).mayRunLive('lookup_order')).toBe(false);
  });

  it('serves the recorded model turns in order, then nothing', async () => {
    const [kase] = await load(testAgent, ['skeleton-tool-call.json']);
    const lane = new LaneRun('c', 'baseline', kase!.recording, 'strict', new Map());
    const served = kase!.recording!.modelTurns.map(() => lane.nextModelTurn());
    expect(served).toEqual(kase!.recording!.modelTurns.map((t) => t.outcome));
    expect(lane.nextModelTurn()).toBeUndefined();
  });
});
