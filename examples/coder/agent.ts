/**
 * A coding agent with a workspace: it starts from a small project (examples/coder/project), runs
 * its tests in the sandbox, fixes the bug with a patch, and asks a person before a command that
 * deletes files. Workflow-safe: contracts only; the files and commands live on the worker
 * (docs/workspaces.md). Example code, never imported by production code.
 */
import { defineAgent, workspaceTools, type RunCommandArgs } from 'cairn-agents';

/** A command that removes files: `rm`, `rmdir`, `find … -delete`, `git clean`. Reviewed by a person first. */
export function deletesFiles({ command, argv }: RunCommandArgs): boolean {
  const line = command ?? (argv ?? []).join(' ');
  return /(^|[\s;&|(])(rm|rmdir|unlink)\s|-delete\b|git\s+clean/.test(line);
}

export const coderAgent = defineAgent({
  name: 'coder',
  instructions:
    'You fix failing tests in the project in your workspace. Run its tests, read what fails, change the code ' +
    '(apply_patch), run the tests again, clean up, and say what you changed.',
  tools: workspaceTools({ approveCommand: deletesFiles }),
  // Relative to the worker's working directory (the repository root for `npm run cairn`).
  workspace: { from: { dir: 'examples/coder/project' }, limits: { commandMs: 60_000 } },
  model: 'scripted:coder',
});
