/**
 * Issue 51's sandbox overhead: a command run through the bubblewrap driver (prlimit, bwrap's
 * namespaces, and as root the walk that chowns to the copy's uid whatever is not yet its) against
 * the same command run bare (spawned by Node in the same directory), medians over `runs` runs each,
 * interleaved, in one process; one case has the worker write a file before every command (as
 * write_file does), so that file is chowned each time; and `chown -R` alone at 10,000 files, the
 * cost per direction of the former chown-there-and-back. Target: ≤ 30 ms a command.
 * Not part of `npm run bench`: `npx tsx bench/workspace-sandbox.ts [runs]`; CAIRN_BENCH_DRIVER=<module
 * exporting bubblewrapDriver> runs the same cases on another build of the driver (a before/after).
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bubblewrapDriver as currentDriver } from '../activities/workspace/bubblewrap-driver.js';
import type { WorkspaceCommand } from '../shared/workspace/workspace.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../shared/workspace/workspace-config.js';

if (process.argv.includes('--help')) {
  console.log(
    'npx tsx bench/workspace-sandbox.ts [runs]   (default 30; CAIRN_BENCH_DRIVER=<module> measures another build of the driver)',
  );
  process.exit(0);
}
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 30);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function tree(dir: string, files: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const perDir = 100;
  for (let d = 0; d < Math.ceil(files / perDir); d++) {
    await mkdir(join(dir, `d${d}`));
    await Promise.all(
      Array.from({ length: Math.min(perDir, files - d * perDir) }, (_, f) =>
        writeFile(join(dir, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`),
      ),
    );
  }
}

function bare(root: string, command: WorkspaceCommand): Promise<number> {
  const argv = command.argv ?? ['/bin/sh', '-c', command.shell as string];
  const started = performance.now();
  return new Promise((resolve, reject) =>
    execFile(argv[0] as string, argv.slice(1), { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error) =>
      error ? reject(error) : resolve(performance.now() - started),
    ),
  );
}

const other = process.env.CAIRN_BENCH_DRIVER;
const bubblewrapDriver: typeof currentDriver =
  other === undefined ? currentDriver : (await import(other)).bubblewrapDriver;
const driver = bubblewrapDriver();
const problem = await driver.check();
if (problem !== undefined) {
  console.log(problem);
  process.exit(1);
}
const parent = await mkdtemp(join(tmpdir(), 'cairn-bench-sandbox-'));
await chmod(parent, 0o711);
const small = join(parent, 'small');
const thousand = join(parent, 'thousand');
const tenThousand = join(parent, 'ten-thousand');
await tree(small, 1);
await tree(thousand, 1_000);
await tree(tenThousand, 10_000);
const limits = DEFAULT_WORKSPACE_LIMITS;
const signal = new AbortController().signal;
const sandboxed = async (root: string, command: WorkspaceCommand) => {
  const started = performance.now();
  const result = await driver.run({ root, command, limits, network: false, signal });
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  return performance.now() - started;
};

console.log(
  `workspace sandbox overhead, ${runs} runs each, medians; load before: ${load()} (uptime: ${spawnSync('uptime').stdout.toString().trim()})`,
);
const cases: [string, string, WorkspaceCommand, boolean?][] = [
  ['true (1 file)', small, { argv: ['true'] }],
  ["sh -c 'echo hi' (1 file)", small, { shell: 'echo hi' }],
  ['ls -R (1,000 files)', thousand, { argv: ['ls', '-R'] }],
  ['true (10,000 files)', tenThousand, { argv: ['true'] }],
  ['true (10,000, 1 written)', tenThousand, { argv: ['true'] }, true],
];
console.log('case                          bare ms   sandbox ms   difference ms   ratio');
for (const [name, root, command, write] of cases) {
  const bareMs: number[] = [];
  const sandboxMs: number[] = [];
  await sandboxed(root, command); // warm
  for (let i = 0; i < runs; i++) {
    bareMs.push(await bare(root, command));
    if (write) await writeFile(join(root, 'written.txt'), `run ${i}\n`); // untimed, as write_file
    sandboxMs.push(await sandboxed(root, command));
  }
  const b = median(bareMs);
  const s = median(sandboxMs);
  console.log(
    `${name.padEnd(30)}${b.toFixed(1).padStart(7)}${s.toFixed(1).padStart(13)}${(s - b).toFixed(1).padStart(16)}${(s / b).toFixed(1).padStart(8)}x`,
  );
}
if (process.getuid?.() === 0) {
  const chown = (uid: number) => {
    const started = performance.now();
    spawnSync('chown', ['-R', '-P', `${uid}:${uid}`, '--', tenThousand]);
    return performance.now() - started;
  };
  const there: number[] = [];
  const back: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i++) {
    there.push(chown(2_999_999));
    back.push(chown(0));
  }
  console.log(
    `chown -R of 10,000 files: to the sandbox uid ${median(there).toFixed(1)} ms, back ${median(back).toFixed(1)} ms (medians)`,
  );
}
console.log(`load after: ${load()}`);
await rm(parent, { recursive: true, force: true });
