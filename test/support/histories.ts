/**
 * Recorded histories: integration tests save the histories of their runs when
 * CAIRN_RECORD_HISTORIES=1, and test/replay.test.ts replays every saved one against the current
 * workflow code, so a nondeterministic change fails CI.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { PACKAGE_ROOT } from '../../runtime/package-root.js';

export const HISTORY_DIR = join(PACKAGE_ROOT, 'test', 'histories');

export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (!process.env.CAIRN_RECORD_HISTORIES) return;
  const history = await handle.fetchHistory();
  await writeFile(join(HISTORY_DIR, `${name}.json`), historyToJSON(history));
}
