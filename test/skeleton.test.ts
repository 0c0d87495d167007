/**
 * The walking skeleton on a real dev server: a model turn, one tool as an activity returning a
 * ToolResult, and a final answer. Also the toolchain: tests run on Node 24.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep } from '../testing/script-steps.js';
import { stateQuery, transcriptQuery } from '../workflows/contract/index.js';
import { CairnPhase } from '../workflows/contract/search-attributes.js';
import { calls } from './fixtures/tools.js';
import { documentedPatches, patchMarkers, recordHistory } from './support/histories.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

describe('toolchain', () => {
  it('runs on Node 24', () => {
    expect(process.version).toMatch(/^v24\./);
  });
});

describe('agentRun walking skeleton', () => {
  let w: TestWorker;
  beforeAll(async () => void (w = await startTestWorker()));
  afterAll(() => w?.stop());

  it('calls a tool as an activity and finishes with the model answer', async () => {
    const before = calls.lookup_order ?? 0;
    const { model, scripted } = w.script([
      scriptStep.call('lookup_order', { orderId: 'A-1001' }),
      scriptStep.text('Order A-1001 has shipped.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model });
    const result = await handle.result();

    expect(result).toMatchObject({ answer: 'Order A-1001 has shipped.', reason: null, turns: 2, toolCalls: 1 });
    expect(calls.lookup_order).toBe(before + 1);
    // The second model turn saw the tool's result, read through the transcript Query.
    const toolMessage = scripted.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(toolMessage).toMatchObject({
      name: 'lookup_order',
      content: { id: 'A-1001', status: 'shipped', total: 42 },
    });

    const history = await handle.fetchHistory();
    const activities = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(activities.map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual([
      'callModel',
      'runTool',
      'callModel',
    ]);
    // The tool's ToolResult is what the activity returned.
    const completed = history.events!.filter((e) => e.activityTaskCompletedEventAttributes);
    expect(completed).toHaveLength(3);

    const state = await handle.query(stateQuery);
    expect(state).toMatchObject({ phase: 'done', answer: 'Order A-1001 has shipped.' });
    expect(await handle.query(transcriptQuery, { length: 100 })).toHaveLength(5);
    await recordHistory(handle, 'skeleton-tool-call');
  });

  // CairnPhase alternated model/tools every turn before: an upsert event twice a turn (history economy).
  it('lists a working run as running: one CairnPhase upsert when it starts working and one when it is done, however many turns', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'A-1001' }),
      scriptStep.call('lookup_order', { orderId: 'A-1002' }),
      scriptStep.text('Both have shipped.'),
    ]);
    const documented = await documentedPatches();
    const handle = await w.start({
      agent: 'test',
      prompt: 'Where are A-1001 and A-1002?',
      model,
      searchAttributes: true,
    });
    expect(await handle.result()).toMatchObject({ turns: 3, toolCalls: 2 });
    await recordHistory(handle, 'search-attributes-running-phase');
    const history = await handle.fetchHistory();
    const phases = history.events!.flatMap((e) => {
      const value = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.CairnPhase?.data;
      return value ? [JSON.parse(Buffer.from(value).toString())] : [];
    });
    expect(phases).toEqual(['running', 'done']);
    // Since the 0.2 baseline a fresh run records no `core_patch` marker but those of patches docs/upgrades.md lists.
    expect(patchMarkers(history).filter((id) => !documented.includes(id))).toEqual([]);
    expect((await handle.describe()).typedSearchAttributes.get(CairnPhase)).toBe('done');
  });

  it('ends a run started with an invalid input at once, naming the field, with a non-retryable failure type', async () => {
    const handle = await w.start({ agent: 'test', prompt: 'x', policy: { maxTurns: 'many' } } as never);
    const failure = await handle.result().then(
      () => undefined,
      (error: { cause?: { type?: string; message?: string; nonRetryable?: boolean } }) => error.cause,
    );
    expect(failure).toMatchObject({ type: 'invalid_run_input', nonRetryable: true });
    expect(failure?.message).toContain('`policy.maxTurns` must be a number');
    const history = await handle.fetchHistory();
    expect(history.events!.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
  });
});
