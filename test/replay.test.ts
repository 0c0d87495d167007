/**
 * Replays every recorded history (test/histories) against today's workflow bundle: any
 * nondeterministic change to the workflow or planner fails here.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { HISTORY_DIR } from './support/histories.js';

describe('recorded histories replay', async () => {
  const files = (await readdir(HISTORY_DIR)).filter((f) => f.endsWith('.json')).sort();

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(await readFile(join(HISTORY_DIR, file), 'utf8')));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, file),
    ).resolves.toBeUndefined();
  });
});
