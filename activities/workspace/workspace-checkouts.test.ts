import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import type { WorkspaceCallInput } from '../../shared/workspace/workspace-call.js';
import { DEFAULT_WORKSPACE_LIMITS, type WorkspaceSource } from '../../shared/workspace/workspace-config.js';
import { MemoryRunStore } from '../../testing/memory-run-store.js';
import { fileRunStore } from '../storage/file-run-store.js';
import { CHUNK_BYTES } from './snapshot-store.js';
import { type WorkspaceCheckouts, workspaceCheckouts } from './workspace-checkouts.js';

let temp: string;
const engines: WorkspaceCheckouts[] = [];
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'cairn-checkouts-test-'));
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
  await rm(temp, { recursive: true, force: true });
});

const engine = (store: MemoryRunStore | ReturnType<typeof fileRunStore>, idleMs = 60_000) => {
  const made = workspaceCheckouts({ store, directory: join(temp, `engine-${engines.length}`), idleMs });
  engines.push(made);
  return made;
};
const input = (at: { digest: string } | { from: WorkspaceSource }, limits = {}): WorkspaceCallInput => ({
  from: 'from' in at ? at.from : { empty: true },
  ...('digest' in at && { digest: at.digest }),
  limits: { ...DEFAULT_WORKSPACE_LIMITS, ...limits },
  network: false,
});

/** Every entry under `root`: type, permission bits, content hash or link target. */
async function describeTree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(join(root, prefix))).sort()) {
    const path = prefix + name;
    const stats = await lstat(join(root, path));
    if (stats.isSymbolicLink()) out.push(`l ${path} -> ${await readlink(join(root, path))}`);
    else if (stats.isDirectory())
      out.push(`d ${path} ${(stats.mode & 0o777).toString(8)}`, ...(await describeTree(root, `${path}/`)));
    else {
      const hash = createHash('sha256')
        .update(await readFile(join(root, path)))
        .digest('hex');
      out.push(`f ${path} ${(stats.mode & 0o777).toString(8)} ${stats.size} ${hash}`);
    }
  }
  return out;
}

/** A small project: text, empty, binary and executable files, an empty dir, symlinks in and out. */
async function project(): Promise<string> {
  const dir = join(temp, 'project');
  await mkdir(join(dir, 'src/deep'), { recursive: true });
  await mkdir(join(dir, 'empty-dir'));
  await writeFile(join(dir, 'README.md'), '# hello\n');
  await writeFile(join(dir, 'empty.txt'), '');
  await writeFile(join(dir, 'src/data.bin'), Buffer.from([0, 1, 2, 255, 0, 128, 10]));
  await writeFile(join(dir, 'src/deep/a.ts'), 'export const a = 1;\n');
  await writeFile(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(dir, 'run.sh'), 0o755);
  await symlink('src/deep/a.ts', join(dir, 'link-a'));
  await symlink('src', join(dir, 'link-src'));
  await symlink('/etc', join(dir, 'outside'));
  return dir;
}

describe('workspaceCheckouts', () => {
  it('restores on another worker exactly the tree it committed: modes, symlinks, empty and binary files, empty dirs', async () => {
    const store = new MemoryRunStore();
    const source = await project();
    const first = await engine(store).checkout(input({ from: { dir: source } }));
    expect(await describeTree(first.root)).toEqual(await describeTree(source));
    await first.discard();
    const restored = await engine(store).checkout(input({ digest: first.digest }));
    expect(restored.digest).toBe(first.digest);
    expect(await describeTree(restored.root)).toEqual(await describeTree(source));
    expect((await lstat(join(restored.root, 'run.sh'))).mode & 0o777).toBe(0o755);
  });

  it('gives the same digest for the same tree from a directory or a tar archive', async () => {
    const store = new MemoryRunStore();
    const source = await project();
    const archive = join(temp, 'project.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', source, '.']);
    const checkouts = engine(store);
    const fromDir = await checkouts.checkout(input({ from: { dir: source } }));
    const fromArchive = await checkouts.checkout(input({ from: { archive } }));
    expect(fromArchive.digest).toBe(fromDir.digest);
  });

  it('stores only what changed: one changed file is one blob and one manifest; no change is no write', async () => {
    const store = new MemoryRunStore();
    const source = join(temp, 'many');
    await mkdir(source);
    for (let i = 0; i < 20; i++) await writeFile(join(source, `f${i}.txt`), `file ${i}\n`);
    const checkouts = engine(store);
    const start = await checkouts.checkout(input({ from: { dir: source } }));
    const keysAfterCreate = store.values.size;
    expect(keysAfterCreate).toBe(21); // 20 blobs and a manifest

    const unchanged = await checkouts.checkout(input({ digest: start.digest }));
    await start.discard();
    const writes = store.writes;
    expect(await unchanged.commit()).toBe(start.digest);
    expect(store.writes).toBe(writes);

    const changed = await checkouts.checkout(input({ digest: start.digest }));
    await writeFile(join(changed.root, 'f3.txt'), 'changed\n');
    await writeFile(join(changed.root, 'copy.txt'), 'file 7\n'); // content already stored
    const next = await changed.commit();
    expect(next).not.toBe(start.digest);
    expect(store.writes - writes).toBe(2);

    const restored = await engine(store).checkout(input({ digest: next }));
    expect(await readFile(join(restored.root, 'f3.txt'), 'utf8')).toBe('changed\n');
    expect(await readFile(join(restored.root, 'copy.txt'), 'utf8')).toBe('file 7\n');
  });

  it('sees a same-size change made right after the copy was restored (no stale stat)', async () => {
    const store = new MemoryRunStore();
    const checkouts = engine(store);
    const source = join(temp, 'one');
    await mkdir(source);
    await writeFile(join(source, 'x.txt'), 'aaaa');
    const start = await checkouts.checkout(input({ from: { dir: source } }));
    await start.discard();
    const copy = await checkouts.checkout(input({ digest: start.digest }));
    await writeFile(join(copy.root, 'x.txt'), 'bbbb');
    const next = await copy.commit();
    expect(next).not.toBe(start.digest);
    const again = await checkouts.checkout(input({ digest: next }));
    await writeFile(join(again.root, 'x.txt'), 'cccc');
    expect(await again.commit()).not.toBe(next);
  });

  it('records an empty directory made by a call, and a chmod 000 file stays readable', async () => {
    const store = new MemoryRunStore();
    const copy = await engine(store).checkout(input({ from: { empty: true } }));
    await mkdir(join(copy.root, 'build/out'), { recursive: true });
    await writeFile(join(copy.root, 'locked.txt'), 'secret');
    await chmod(join(copy.root, 'locked.txt'), 0o000);
    const next = await copy.commit();
    const restored = await engine(store).checkout(input({ digest: next }));
    expect(await describeTree(restored.root)).toEqual([
      'd build 755',
      'd build/out 755',
      `f locked.txt 644 6 ${createHash('sha256').update('secret').digest('hex')}`,
    ]);
  });

  it('stores a big file in parts and restores it', async () => {
    const store = new MemoryRunStore();
    const copy = await engine(store).checkout(input({ from: { empty: true } }));
    const big = randomBytes(CHUNK_BYTES * 2 + 1000);
    await writeFile(join(copy.root, 'big.bin'), big);
    const next = await copy.commit();
    expect([...store.values.keys()].filter((key) => key.startsWith('cairn:w:c:'))).toHaveLength(3);
    const restored = await engine(store).checkout(input({ digest: next }));
    expect((await readFile(join(restored.root, 'big.bin'))).equals(big)).toBe(true);
  });

  it('fails clearly when the store lost a file of the snapshot, or the snapshot', async () => {
    const store = new MemoryRunStore();
    const start = await engine(store).checkout(input({ from: { dir: await project() } }));
    store.delete((key) => key.startsWith('cairn:w:b:'));
    const other = engine(store);
    const lost = await other.checkout(input({ digest: start.digest })).catch((error: unknown) => error);
    expect(ToolFailure.isInstance(lost)).toBe(false);
    expect(String(lost)).toMatch(/run store has lost the content of \S+ \(sha256 [0-9a-f]{64}\)/);
    store.delete((key) => key.startsWith('cairn:w:m:'));
    await expect(engine(store).checkout(input({ digest: start.digest }))).rejects.toThrow(/is not in the run store/);
    expect(await readdir(join(temp, 'engine-1', 'copies'))).toEqual([]); // no half-restored copy left
  });

  it('refuses a commit over the limits with a ToolFailure, and the workspace stays as it was', async () => {
    const store = new MemoryRunStore();
    const checkouts = engine(store);
    const start = await checkouts.checkout(input({ from: { empty: true } }, { files: 3, bytes: 100 }));
    await writeFile(join(start.root, 'a.txt'), 'a');
    const digest = await start.commit();
    for (const [limits, make] of [
      [
        { files: 3, bytes: 100 },
        (root: string) => Promise.all([1, 2, 3].map((i) => writeFile(join(root, `n${i}`), 'x'))),
      ],
      [{ files: 3, bytes: 100 }, (root: string) => writeFile(join(root, 'big.txt'), 'x'.repeat(101))],
    ] as const) {
      const copy = await checkouts.checkout(input({ digest }, limits));
      await make(copy.root);
      const refused = await copy.commit().catch((error: unknown) => error);
      expect(ToolFailure.isInstance(refused) && refused.code).toBe('semantic_error');
      expect((refused as ToolFailure).hint?.message).toMatch(/workspace is unchanged/);
      expect(existsSync(copy.root)).toBe(false);
      await copy.discard(); // what the activity does after a failed commit: harmless
    }
    const after = await engine(store).checkout(input({ digest }));
    expect(await readdir(after.root)).toEqual(['a.txt']);
  });

  it('moves a warm copy to the next checkout of its digest, reading nothing from the store', async () => {
    const store = new MemoryRunStore();
    const checkouts = engine(store);
    const first = await checkouts.checkout(input({ from: { empty: true } }));
    await writeFile(join(first.root, 'a.txt'), 'a');
    const digest = await first.commit();
    const reads = store.reads;
    const second = await checkouts.checkout(input({ digest }));
    expect(second.root).not.toBe(first.root);
    expect(existsSync(first.root)).toBe(false);
    expect(await readFile(join(second.root, 'a.txt'), 'utf8')).toBe('a');
    expect(store.reads).toBe(reads);
    // The warm copy is gone: a second checkout of the digest gets a restored copy of its own.
    const third = await checkouts.checkout(input({ digest }));
    expect(third.root).not.toBe(second.root);
    expect(await readFile(join(third.root, 'a.txt'), 'utf8')).toBe('a');
  });

  it('deletes a warm copy left unused for idleMs', async () => {
    const store = new MemoryRunStore();
    const checkouts = engine(store, 20);
    const copy = await checkouts.checkout(input({ from: { empty: true } }));
    await writeFile(join(copy.root, 'a.txt'), 'a');
    const digest = await copy.commit();
    expect(existsSync(copy.root)).toBe(true);
    await expect.poll(() => existsSync(copy.root), { timeout: 10_000, interval: 10 }).toBe(false);
    const restored = await checkouts.checkout(input({ digest }));
    expect(await readFile(join(restored.root, 'a.txt'), 'utf8')).toBe('a');
  });

  it('gives two calls at once of the same digest their own copies', async () => {
    const store = new MemoryRunStore();
    const checkouts = engine(store);
    const start = await checkouts.checkout(input({ from: { dir: await project() } }));
    const digest = await start.commit(); // warm: one of the two takes it, the other restores
    const [a, b] = await Promise.all([checkouts.checkout(input({ digest })), checkouts.checkout(input({ digest }))]);
    expect(a!.root).not.toBe(b!.root);
    await writeFile(join(a!.root, 'README.md'), 'a\n');
    await writeFile(join(b!.root, 'README.md'), 'b\n');
    const [da, db] = await Promise.all([a!.commit(), b!.commit()]);
    expect(new Set([digest, da, db]).size).toBe(3);
    const restored = await engine(store).checkout(input({ digest: db }));
    expect(await readFile(join(restored.root, 'README.md'), 'utf8')).toBe('b\n');
  });

  it('round-trips through the real file run store', async () => {
    const store = fileRunStore({ directory: join(temp, 'store') });
    const source = await project();
    const copy = await engine(store).checkout(input({ from: { dir: source } }));
    await writeFile(join(copy.root, 'src/deep/a.ts'), 'export const a = 2;\n');
    const next = await copy.commit();
    const restored = await engine(store).checkout(input({ digest: next }));
    await writeFile(join(source, 'src/deep/a.ts'), 'export const a = 2;\n');
    expect(await describeTree(restored.root)).toEqual(await describeTree(source));
  });
});
