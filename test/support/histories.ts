/**
 * Recorded histories: integration tests save the histories of their runs when
 * CAIRN_RECORD_HISTORIES=1, and test/replay.test.ts replays every saved one against the current
 * workflow code, so a nondeterministic change fails CI.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { PACKAGE_ROOT } from '../../runtime/package-root.js';

export const HISTORY_DIR = join(PACKAGE_ROOT, 'test', 'histories');

export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (!process.env.CAIRN_RECORD_HISTORIES) return;
  const history = await handle.fetchHistory();
  await writeFile(join(HISTORY_DIR, `${name}.json`), historyToJSON(history));
}

/** The ids of the `patched()` markers in a history (Temporal's `core_patch` markers), in order. */
export function patchMarkers(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    return [data ? (JSON.parse(Buffer.from(data).toString()) as { id: string }).id : '?'];
  });
}

/** The patches docs/upgrades.md lists as Cairn's own since the 0.2 baseline (its table of patches). */
export async function documentedPatches(): Promise<string[]> {
  const doc = await readFile(join(PACKAGE_ROOT, 'docs', 'upgrades.md'), 'utf8');
  const from = doc.indexOf("Cairn's patches since the 0.2 baseline:");
  if (from < 0) throw new Error("docs/upgrades.md no longer has its table of Cairn's patches since the 0.2 baseline");
  const table = doc.slice(from).split('\n\n')[1] ?? '';
  return [...table.matchAll(/^\| `(cairn-[a-z0-9-]+)`/gm)].map((m) => m[1]!);
}
