/**
 * Replays every recorded history (test/histories) against today's workflow bundle: any
 * nondeterministic change to the workflow or planner fails here.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { HISTORY_DIR, documentedPatches, patchMarkers } from './support/histories.js';

interface Scheduled {
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
}

interface ChildStarted {
  startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string };
}

/**
 * The workflow id a recorded run had. A history does not hold it, but a run with agent tools derives
 * its children's ids from it (`<workflowId>/<toolCallId>`), so replay must use the same one.
 */
function workflowIdOf(json: { events: ChildStarted[] }, file: string): string {
  const child = json.events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  return child ? child.slice(0, child.lastIndexOf('/')) : file;
}

describe('recorded histories replay', async () => {
  const files = (await readdir(HISTORY_DIR)).filter((f) => f.endsWith('.json')).sort();

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  // Every tool call is a `runTool` activity: only its id tells calls apart (take-step.ts, `scheduled`).
  it('catches a batch whose calls were scheduled in another order, instead of handing one call the result of another', async () => {
    const json = JSON.parse(await readFile(join(HISTORY_DIR, 'parallel-batch-failed-and-timed-out.json'), 'utf8'));
    const [first, second] = json.events.filter(
      (e: Scheduled) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    ) as Scheduled[];
    [first!.activityTaskScheduledEventAttributes, second!.activityTaskScheduledEventAttributes] = [
      second!.activityTaskScheduledEventAttributes,
      first!.activityTaskScheduledEventAttributes,
    ];
    const replay = Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      historyFromJSON(json),
      'reordered',
    );
    await expect(replay).rejects.toThrow(/[Nn]ondetermin/);
  });

  // The corpus is what runs of this release record: since the 0.2 baseline, no marker of a patch docs/upgrades.md does not list.
  it('holds only the patch markers docs/upgrades.md lists', async () => {
    const documented = await documentedPatches();
    const undocumented: string[] = [];
    for (const file of files) {
      const json = JSON.parse(await readFile(join(HISTORY_DIR, file), 'utf8'));
      for (const id of patchMarkers(historyFromJSON(json)))
        if (!documented.includes(id)) undocumented.push(`${file}: ${id}`);
    }
    expect(undocumented).toEqual([]);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const json = JSON.parse(await readFile(join(HISTORY_DIR, file), 'utf8'));
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        historyFromJSON(json),
        workflowIdOf(json, file),
      ),
    ).resolves.toBeUndefined();
  });
});
