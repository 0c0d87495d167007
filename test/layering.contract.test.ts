/**
 * The sandbox and dependency direction, enforced: workflows → planner → shared; activities →
 * shared. Workflow-side folders import no Node built-ins, no worker/client/activity SDK packages,
 * no activities and no provider SDKs. The planner imports nothing from Temporal at all.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../runtime/temporal-cli.js';

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? m[2]!);
}

const NODE_BUILTIN = /^(node:|fs|path|os|child_process|crypto|http|https|net|stream|worker_threads|process)(\/|$)/;
const WORKER_SIDE = /^@temporalio\/(activity|worker|client|testing|envconfig)|^(ai|@ai-sdk\/)/;

const RULES: { folder: string; forbidden: RegExp[] }[] = [
  { folder: 'shared', forbidden: [NODE_BUILTIN, WORKER_SIDE, /^@temporalio\//, /\.\.\/(planner|workflows|activities|runtime|cli)\//] },
  { folder: 'planner', forbidden: [NODE_BUILTIN, WORKER_SIDE, /^@temporalio\//, /\.\.\/(workflows|activities|runtime|cli)\//] },
  { folder: 'workflows', forbidden: [NODE_BUILTIN, WORKER_SIDE, /\.\.\/(activities|runtime|cli)\//] },
  { folder: 'activities', forbidden: [/\.\.\/(workflows|planner|runtime|cli)\//] },
];

describe('layering contract', () => {
  for (const { folder, forbidden } of RULES) {
    it(`${folder}/ imports only what its side may`, async () => {
      const files = await sources(folder);
      expect(files.length).toBeGreaterThan(0);
      const violations: string[] = [];
      for (const file of files)
        for (const spec of await importsOf(file))
          if (forbidden.some((re) => re.test(spec))) violations.push(`${relative(PROJECT_ROOT, file)} imports ${spec}`);
      expect(violations).toEqual([]);
    });
  }
});
