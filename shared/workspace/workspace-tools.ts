/**
 * The workspace tools a coding agent needs: read, write, patch, list, run a command. Each is an
 * ordinary Cairn tool (validated arguments, ToolError + RetryHint, reviews, budgets) with
 * `workspace: true`: it runs on the run's current snapshot, and what it changes becomes the next
 * one (docs/workspaces.md). Write your own the same way, with `context.workspace`.
 * Workflow-safe to import (zod and types); `execute` runs only in the tool activity.
 */
import { z } from 'zod';
import { defineTool, type AnyTool, type ApprovalRule, type ToolContext } from '../tools/define-tool.js';
import { ToolFailure } from '../failures/tool-failure.js';
import { DEFAULT_WORKSPACE_LIMITS } from './workspace-config.js';
import type { Workspace } from './workspace.js';

const path = z.string().min(1).max(4096).describe('A path relative to the workspace root, e.g. src/index.ts');

const readFileInput = z.object({
  path,
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based); default 1'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive); default the end'),
});
const writeFileInput = z.object({
  path,
  content: z.string().describe('The whole new content of the file (UTF-8 text)'),
  createOnly: z.boolean().optional().describe('Refuse to overwrite an existing file'),
});
const applyPatchInput = z.object({
  patch: z.string().min(1).describe('A unified diff (as `git diff` or `diff -u` print it); all files apply or none'),
});
const listFilesInput = z.object({
  path: path.optional().describe('A directory relative to the workspace root; default the root'),
  pattern: z.string().max(512).optional().describe('A glob on the relative path, e.g. **/*.test.ts'),
  limit: z.number().int().min(1).max(5000).optional().describe('At most this many entries; default 500'),
});
const runCommandInput = z
  .object({
    command: z.string().min(1).max(16_384).optional().describe('A shell line, run with /bin/sh -c'),
    argv: z.array(z.string().max(16_384)).min(1).max(1024).optional().describe('Or a program and its arguments'),
    cwd: path.optional().describe('Working directory relative to the workspace root; default the root'),
    timeoutMs: z.number().int().min(1).optional().describe('Wall time before the command is stopped'),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(16_384)).optional(),
  })
  .refine((args) => (args.command === undefined) !== (args.argv === undefined), {
    message: 'Give either command (a shell line) or argv, not both and not neither.',
    path: ['command'],
  });

export type RunCommandArgs = z.output<typeof runCommandInput>;

export interface WorkspaceToolsOptions {
  /** When a person reviews a command before it runs, e.g. `(args) => /\brm\b/.test(args.command ?? '')`. Default never. */
  readonly approveCommand?: ApprovalRule<RunCommandArgs>;
  /** When a person reviews a write or a patch. Default never. */
  readonly approveWrites?: 'never' | 'always';
  /** The longest a command may run (the agent's `limits.maxCommandMs`): bounds the activity. Default 10 min. */
  readonly maxCommandMs?: number;
}

/** The run's workspace, or a failure saying the run has none (a worker or run without workspaces). */
function workspaceOf(context: ToolContext): Workspace {
  if (context.workspace) return context.workspace;
  throw new ToolFailure(
    'tool_unavailable',
    'This run has no workspace: the agent declares none, or its worker has no workspaces.',
  );
}

// One body per tool, whatever the options: agents with different review rules share a worker,
// which runs a tool by name (runtime/worker.ts accepts tools that differ only on the workflow side).
const readFile = ({ path, startLine, endLine }: z.output<typeof readFileInput>, context: ToolContext) =>
  workspaceOf(context).readFile(path, {
    ...(startLine !== undefined && { startLine }),
    ...(endLine !== undefined && { endLine }),
  });
const writeFile = async ({ path, content, createOnly }: z.output<typeof writeFileInput>, context: ToolContext) => ({
  path,
  ...(await workspaceOf(context).writeFile(path, content, createOnly ? { createOnly } : {})),
});
const applyPatch = ({ patch }: z.output<typeof applyPatchInput>, context: ToolContext) =>
  workspaceOf(context).applyPatch(patch);
const listFiles = ({ path, pattern, limit }: z.output<typeof listFilesInput>, context: ToolContext) =>
  workspaceOf(context).list(path, { ...(pattern !== undefined && { pattern }), limit: limit ?? 500 });
const runCommand = ({ command, argv, cwd, timeoutMs, env }: RunCommandArgs, context: ToolContext) =>
  workspaceOf(context).run({
    ...(command !== undefined ? { shell: command } : { argv: argv! }),
    ...(cwd !== undefined && { cwd }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(env !== undefined && { env }),
  });

/** read_file, write_file, apply_patch, list_files and run_command, ready for an agent's `tools`. */
export function workspaceTools(options: WorkspaceToolsOptions = {}): AnyTool[] {
  const maxCommandMs = options.maxCommandMs ?? DEFAULT_WORKSPACE_LIMITS.maxCommandMs;
  const writes = options.approveWrites ?? 'never';
  return [
    defineTool({
      name: 'read_file',
      description: 'Read a text file of the workspace, whole or a range of lines (1-based, inclusive).',
      input: readFileInput,
      sideEffects: 'none',
      workspace: true,
      examples: [{ path: 'src/index.ts', startLine: 1, endLine: 80 }],
      execute: readFile,
    }),
    defineTool({
      name: 'write_file',
      description: 'Create or replace a text file of the workspace with the given content.',
      input: writeFileInput,
      sideEffects: 'idempotent',
      approval: writes,
      workspace: true,
      execute: writeFile,
    }),
    defineTool({
      name: 'apply_patch',
      description:
        'Apply a unified diff to the workspace (several files, new and deleted files). If a hunk does not match, nothing changes and the error shows the file as it is.',
      input: applyPatchInput,
      sideEffects: 'idempotent',
      approval: writes,
      workspace: true,
      execute: applyPatch,
    }),
    defineTool({
      name: 'list_files',
      description: 'List files and directories of the workspace, optionally under a directory and matching a glob.',
      input: listFilesInput,
      sideEffects: 'none',
      workspace: true,
      execute: listFiles,
    }),
    defineTool({
      name: 'run_command',
      description:
        'Run a command in the workspace sandbox (no network unless allowed). A non-zero exit is a result: read exitCode, stdout and stderr (their tails).',
      input: runCommandInput,
      sideEffects: 'idempotent',
      approval: options.approveCommand ?? 'never',
      workspace: true,
      examples: [{ command: 'npm test' }],
      // The activity outlives the longest command; a dead worker is still noticed by its heartbeats.
      timeouts: { startToCloseMs: maxCommandMs + 60_000, scheduleToCloseMs: 3 * (maxCommandMs + 60_000) },
      execute: runCommand,
    }),
  ];
}
