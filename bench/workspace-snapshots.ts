/**
 * Issue 51's workspace snapshots: what a snapshot and a restore cost against the workspace's size
 * (1 MB in 100 files, 50 MB in 500 files, 10,000 small files), and what one changed file costs to
 * commit, on the file run store and on Redis (127.0.0.1:6379; skipped when it does not answer).
 * Each row, in one process:
 * - snapshot: a workspace created from a directory (copy, hash everything, store everything);
 * - restore cold: another worker's first checkout (every blob read from the store);
 * - restore cached: a checkout on a worker whose blob cache has the files (no warm copy);
 * - warm: the checkout that takes the previous call's copy (a rename);
 * - commit 1 file: one file rewritten, then commit, on a just-restored copy and on a warm one
 *   (median of `rounds`), with the values it wrote to the store;
 * - commit none: nothing changed.
 * Baseline, in the same run: `cp -RPp` of the same tree (what any restore must at least do), so the
 * figures read as ratios on a loaded machine.
 * Targets: one changed file commits in ≤ 50 ms at 50 MB; a 50 MB restore takes ≤ 2 s.
 * Not part of `npm run bench`: `npx tsx bench/workspace-snapshots.ts [rounds]`.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileRunStore } from '../activities/storage/file-run-store.js';
import { redisRunStore } from '../activities/storage/redis-run-store.js';
import { workspaceCheckouts } from '../activities/workspace/workspace-checkouts.js';
import type { RunStore } from '../shared/storage/run-store.js';
import type { WorkspaceCallInput } from '../shared/workspace/workspace-call.js';
import { DEFAULT_WORKSPACE_LIMITS, type WorkspaceSource } from '../shared/workspace/workspace-config.js';

if (process.argv.includes('--help')) {
  console.log(
    'npx tsx bench/workspace-snapshots.ts [rounds]   (default 5; Redis at 127.0.0.1:6379 is used when it answers)',
  );
  process.exit(0);
}
const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const temp = await mkdtemp(join(tmpdir(), 'cairn-bench-workspaces-'));
const load = () => execSync('uptime').toString().trim();

const shapes = [
  { name: '1 MB / 100 files', files: 100, bytes: 10_240 },
  { name: '50 MB / 500 files', files: 500, bytes: 102_400 },
  { name: '10,000 files (10 MB)', files: 10_000, bytes: 1_024 },
];

async function source(shape: (typeof shapes)[number]): Promise<string> {
  const dir = join(temp, `src-${shape.files}-${shape.bytes}`);
  for (let i = 0; i < shape.files; i++) {
    const sub = join(dir, `d${i % 50}`);
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, `f${i}.txt`), randomBytes(shape.bytes).toString('base64').slice(0, shape.bytes));
  }
  return dir;
}

const input = (at: { digest: string } | { from: WorkspaceSource }): WorkspaceCallInput => ({
  from: 'from' in at ? at.from : { empty: true },
  ...('digest' in at && { digest: at.digest }),
  limits: DEFAULT_WORKSPACE_LIMITS,
  network: false,
});

const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(storeName: string, store: RunStore, shape: (typeof shapes)[number], dir: string) {
  const engine = (n: string) =>
    workspaceCheckouts({ store, directory: join(temp, `${storeName}-${n}`), idleMs: 60_000 });
  const a = engine('a');
  const [created, snapshot] = await time(() => a.checkout(input({ from: { dir } })));
  await created.discard();
  const b = engine('b');
  const [cold, restoreCold] = await time(() => b.checkout(input({ digest: created.digest })));
  await cold.discard();
  const [cached, restoreCached] = await time(() => b.checkout(input({ digest: created.digest })));
  const victim = join('d7', 'f7.txt');
  await writeFile(join(cached.root, victim), randomBytes(shape.bytes).toString('base64').slice(0, shape.bytes));
  const puts = b.snapshots.counts.puts;
  const [first, commitAfterRestore] = await time(() => cached.commit());
  const putsOne = b.snapshots.counts.puts - puts;
  let digest = first;
  const warmTimes: number[] = [];
  const commitTimes: number[] = [];
  const noneTimes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const [copy, warm] = await time(() => b.checkout(input({ digest })));
    warmTimes.push(warm);
    await writeFile(join(copy.root, victim), randomBytes(shape.bytes).toString('base64').slice(0, shape.bytes));
    const [next, commit] = await time(() => copy.commit());
    commitTimes.push(commit);
    const again = await b.checkout(input({ digest: next }));
    noneTimes.push((await time(() => again.commit()))[1]);
    digest = next;
  }
  await a.close();
  await b.close();
  const [, cp] = await time(async () => execSync(`cp -RPp ${dir} ${join(temp, `cp-${storeName}-${shape.files}`)}`));
  const ms = (n: number) => n.toFixed(n < 10 ? 1 : 0).padStart(8);
  return `${storeName.padEnd(6)} ${shape.name.padEnd(21)}${ms(snapshot)}${ms(restoreCold)}${ms(restoreCached)}${ms(median(warmTimes))}${ms(commitAfterRestore)}${ms(median(commitTimes))}${ms(median(noneTimes))}${String(putsOne).padStart(6)}${ms(cp)}   ${(restoreCached / cp).toFixed(1)}x`;
}

const stores: [string, () => Promise<RunStore | undefined>][] = [
  ['file', async () => fileRunStore({ directory: join(temp, 'store') })],
  [
    'redis',
    async () => {
      const store = redisRunStore({ ttlMs: 15 * 60_000, log: () => undefined, timeoutMs: 10_000 });
      try {
        await store.get(['cairn:w:ping']);
        return store;
      } catch {
        await store.close?.();
        return undefined;
      }
    },
  ],
];

const lines = [
  `workspace snapshots, ${rounds} rounds; ${load()}`,
  'all times in ms             snapshot    cold  cached    warm  1 file  1 file    none  puts   cp -R  cached',
  '                              (create) restore restore checkout (fresh) (warm)  commit (1 f.)  (base)  /cp',
];
const dirs = [];
for (const shape of shapes) dirs.push(await source(shape));
for (const [name, open] of stores) {
  const store = await open();
  if (!store) {
    lines.push(`${name}: not reachable, skipped`);
    continue;
  }
  for (let i = 0; i < shapes.length; i++) lines.push(await measure(name, store, shapes[i]!, dirs[i]!));
  await store.close?.();
}
lines.push(`end: ${load()}`);
console.log(lines.join('\n'));
await rm(temp, { recursive: true, force: true });
process.exit(0);
