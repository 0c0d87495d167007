import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../../shared/workspace/workspace-config.js';
import { type WorkspaceFiles, workspaceFiles } from './workspace-files.js';

let temp: string;
let root: string;
let outside: string;
let files: WorkspaceFiles;
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'cairn-files-test-'));
  root = join(temp, 'root');
  outside = join(temp, 'outside');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'secret\n');
  await writeFile(join(root, 'src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
  await writeFile(join(root, 'notes.md'), 'no newline at the end');
  files = workspaceFiles(root, { ...DEFAULT_WORKSPACE_LIMITS, fileBytes: 1_000 });
});
afterEach(() => rm(temp, { recursive: true, force: true }));

/** The ToolFailure `promise` rejects with (fails the test when it resolves or throws anything else). */
async function failure(promise: Promise<unknown>): Promise<ToolFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!ToolFailure.isInstance(error)) throw new Error(`expected a ToolFailure, got ${String(error)}`);
  return error;
}

describe('workspace paths', () => {
  it('refuses paths that leave the workspace, by name or through a symlink', async () => {
    await symlink('/etc', join(root, 'etc'));
    await symlink(outside, join(root, 'out'));
    await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling.txt'));
    for (const [path, why] of [
      ['../x', /leads outside/],
      ['src/../../x', /leads outside/],
      ['/etc/passwd', /is absolute/],
      ['etc/passwd', /symlink that points outside/],
      ['out/secret.txt', /symlink that points outside/],
      ['leak.txt', /symlink that points outside/],
    ] as const) {
      const refused = await failure(files.readFile(path));
      expect(refused.code).toBe('invalid_arguments');
      expect(refused.message).toMatch(why);
    }
    expect((await failure(files.writeFile('out/new.txt', 'x'))).message).toMatch(/points outside/);
    expect((await failure(files.writeFile('leak.txt', 'pwned'))).message).toMatch(/points outside/);
    expect((await failure(files.writeFile('dangling.txt', 'x'))).message).toMatch(/points nowhere/);
    expect((await failure(files.list('out'))).message).toMatch(/points outside/);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(existsSync(join(outside, 'new.txt')) || existsSync(join(outside, 'not-yet.txt'))).toBe(false);
  });

  it('follows a symlink that stays inside', async () => {
    await symlink('src/a.ts', join(root, 'link.ts'));
    expect((await files.readFile('link.ts', { startLine: 2, endLine: 2 })).content).toBe('two');
  });
});

describe('readFile', () => {
  it('reads line ranges, 1-based and inclusive, clamped at the end', async () => {
    expect(await files.readFile('src/a.ts', { startLine: 2, endLine: 3 })).toEqual({
      path: 'src/a.ts',
      content: 'two\nthree',
      startLine: 2,
      endLine: 3,
      totalLines: 5,
      bytes: 24,
      binary: false,
    });
    expect((await files.readFile('./src//a.ts', { startLine: 4, endLine: 99 })).content).toBe('four\nfive');
    expect((await files.readFile('notes.md')).totalLines).toBe(1);
    expect((await failure(files.readFile('src/a.ts', { startLine: 6 }))).message).toMatch(/has 5 lines/);
    expect((await failure(files.readFile('src/missing.ts'))).message).toMatch(/does not exist/);
    expect((await failure(files.readFile('src'))).message).toMatch(/not a file/);
  });

  it('says binary for a file that is not UTF-8 text, without its bytes', async () => {
    await writeFile(join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff]));
    await writeFile(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await files.readFile('image.png')).toMatchObject({ binary: true, content: '', bytes: 7 });
    expect(await files.readFile('latin1.txt')).toMatchObject({ binary: true, content: '' });
  });
});

describe('writeFile', () => {
  it('creates parents, honours createOnly and the per-file byte limit', async () => {
    expect(await files.writeFile('new/dir/x.txt', 'hello')).toEqual({ bytes: 5, created: true });
    expect(await readFile(join(root, 'new/dir/x.txt'), 'utf8')).toBe('hello');
    expect(await files.writeFile('new/dir/x.txt', 'again')).toEqual({ bytes: 5, created: false });
    expect((await failure(files.writeFile('new/dir/x.txt', 'x', { createOnly: true }))).message).toMatch(
      /already exists/,
    );
    expect((await failure(files.writeFile('big.txt', 'x'.repeat(1_001)))).message).toMatch(/limit of 1000 bytes/);
    expect(existsSync(join(root, 'big.txt'))).toBe(false);
  });
});

describe('list', () => {
  it('lists depth-first and sorted, filters by glob, and says when it was cut short', async () => {
    await mkdir(join(root, 'src/lib'));
    await writeFile(join(root, 'src/lib/b.ts'), 'b');
    await writeFile(join(root, 'src/lib/c.js'), 'c');
    await symlink(outside, join(root, 'out'));
    expect((await files.list()).entries.map((e) => `${e.type} ${e.path}`)).toEqual([
      'file notes.md',
      'symlink out',
      'dir src',
      'file src/a.ts',
      'dir src/lib',
      'file src/lib/b.ts',
      'file src/lib/c.js',
    ]);
    const paths = async (path: string | undefined, pattern: string) =>
      (await files.list(path, { pattern })).entries.map((e) => e.path);
    expect(await paths(undefined, '*.ts')).toEqual(['src/a.ts', 'src/lib/b.ts']);
    expect(await paths(undefined, 'src/*.ts')).toEqual(['src/a.ts']);
    expect(await paths(undefined, 'src/**/*.{ts,js}')).toEqual(['src/a.ts', 'src/lib/b.ts', 'src/lib/c.js']);
    expect(await paths('src', 'lib/?.js')).toEqual(['src/lib/c.js']);
    expect(await files.list('src', { limit: 2 })).toEqual({
      entries: [
        { path: 'src/a.ts', type: 'file', size: 24 },
        { path: 'src/lib', type: 'dir', size: 0 },
      ],
      truncated: true,
    });
  });
});

describe('applyPatch', () => {
  const modify = ['--- a/src/a.ts', '+++ b/src/a.ts', '@@ -2,3 +2,3 @@', ' two', '-three', '+THREE', ' four', ''].join(
    '\n',
  );

  it('applies a git-style hunk, also when the file moved down a few lines', async () => {
    expect(await files.applyPatch(modify)).toEqual({ files: ['src/a.ts'] });
    expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('one\ntwo\nTHREE\nfour\nfive\n');
    await writeFile(join(root, 'src/a.ts'), 'zero\nzero\none\ntwo\nthree\nfour\nfive\n');
    await files.applyPatch(modify);
    expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('zero\nzero\none\ntwo\nTHREE\nfour\nfive\n');
  });

  it('refuses a hunk whose context does not match, showing the hunk and the current lines, and changes nothing', async () => {
    const wrong = modify.replace(' four', ' FOUR?');
    const patch = `--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+new\n${wrong}`;
    const refused = await failure(files.applyPatch(patch));
    expect(refused.code).toBe('invalid_arguments');
    expect(refused.hint?.message).toContain('@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n FOUR?');
    expect(refused.hint?.message).toMatch(/^ {5}3\| three$/m);
    expect(refused.hint?.message).toMatch(/Nothing was changed/);
    expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('one\ntwo\nthree\nfour\nfive\n');
    expect(existsSync(join(root, 'created.txt'))).toBe(false);
  });

  it('refuses a patch to a file that does not exist, or that creates one that does', async () => {
    expect((await failure(files.applyPatch(modify.replaceAll('src/a.ts', 'src/gone.ts')))).hint?.message).toMatch(
      /src\/gone\.ts, which does not exist/,
    );
    const create = '--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+x\n';
    expect((await failure(files.applyPatch(create))).message).toMatch(/already exists/);
    expect((await failure(files.applyPatch('hello'))).message).toMatch(/not a unified diff/);
    expect((await failure(files.applyPatch('--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n'))).message).toMatch(
      /leads outside/,
    );
  });

  it('creates, deletes and changes files in one patch, as diff -ruN and git diff write it', async () => {
    const before = join(temp, 'before');
    const after = join(temp, 'after');
    await mkdir(join(before, 'src'), { recursive: true });
    await mkdir(join(after, 'src'), { recursive: true });
    await writeFile(join(before, 'src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
    await writeFile(join(after, 'src/a.ts'), 'one\n2\nthree\nfour\nfive\nsix');
    await writeFile(join(before, 'notes.md'), 'no newline at the end');
    await writeFile(join(after, 'added.txt'), 'brand new\n');
    const diff = (args: string[]) => {
      try {
        return execFileSync(args[0]!, args.slice(1), { cwd: temp, encoding: 'utf8' });
      } catch (error) {
        return (error as { stdout: string }).stdout; // exit 1: the trees differ
      }
    };
    for (const tool of [
      ['diff', '-ruN', 'before', 'after'],
      ['git', 'diff', '--no-index', '--no-color', 'before', 'after'],
    ]) {
      const patch = diff(tool).replaceAll('before/', '').replaceAll('after/', '');
      await rm(root, { recursive: true });
      await mkdir(join(root, 'src'), { recursive: true });
      await writeFile(join(root, 'src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
      await writeFile(join(root, 'notes.md'), 'no newline at the end');
      expect((await files.applyPatch(patch)).files.toSorted()).toEqual(['added.txt', 'notes.md', 'src/a.ts']);
      expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('one\n2\nthree\nfour\nfive\nsix');
      expect(await readFile(join(root, 'added.txt'), 'utf8')).toBe('brand new\n');
      expect(existsSync(join(root, 'notes.md'))).toBe(false);
    }
  });
});
