/**
 * The activity behind a reviewer's preview of a workspace write (workflows/review-changes.ts):
 * the unified diff of the file as the run's snapshot has it against the content the call would
 * write, made by the system `diff -u`. Reads only: the working copy is committed unchanged (kept
 * warm for the call that follows an accept). Worker side; safe to retry.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkspacePreviewInput } from '../../shared/workspace/workspace-call.js';
import type { WorkspaceRuntime } from './workspace-runtime.js';
import { resolveInside } from './workspace-paths.js';

export interface WorkspacePreviewActivities {
  previewWorkspaceChange(input: WorkspacePreviewInput): Promise<string | null>;
}

/** `diff -u` of two files under the given labels; `diff` exits 1 when they differ. */
function unifiedDiff(before: string, after: string, labels: [string, string]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'diff',
      ['-u', '--label', labels[0], '--label', labels[1], before, after],
      { maxBuffer: 8 * 1024 * 1024 },
      (error, stdout) => (error && error.code !== 1 ? reject(error) : resolve(stdout)),
    ),
  );
}

export function createWorkspacePreviewActivities(runtime: WorkspaceRuntime): WorkspacePreviewActivities {
  return {
    async previewWorkspaceChange({ path, content, workspace }) {
      const checkout = await runtime.checkouts.checkout(workspace);
      const scratch = await mkdtemp(join(tmpdir(), 'cairn-preview-'));
      try {
        // A path the write would refuse shows no preview: the call fails the same way when it runs.
        const at = await resolveInside(await realpath(checkout.root), path).catch(() => undefined);
        if (at === undefined) return null;
        const current = at.exists ? await readFile(at.absolute) : null;
        if (current?.includes(0))
          return `Binary file ${path} would be replaced by ${Buffer.byteLength(content)} bytes of text.`;
        const before = current === null ? '/dev/null' : at.absolute;
        await writeFile(join(scratch, 'after'), content);
        const labels: [string, string] = [current === null ? '/dev/null' : `a/${at.relative}`, `b/${at.relative}`];
        const diff = await unifiedDiff(before, join(scratch, 'after'), labels);
        return diff === '' ? `${path} would not change.` : diff;
      } finally {
        await rm(scratch, { recursive: true, force: true });
        await checkout.commit().catch(() => checkout.discard());
      }
    },
  };
}
