import type { Stats } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildManifest, parseManifest, sha256Hex } from './snapshot-manifest.js';
import { RACY_MS, scanTree, statKey, trustedStatKey } from './snapshot-scan.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-scan-test-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const limits = { bytes: 1_000_000, files: 1_000 };
const overLimit = (detail: string): never => {
  throw new Error(detail);
};

describe('scanTree', () => {
  it('rehashes only files whose stat changed since it last remembered them', async () => {
    await mkdir(join(root, 'src'));
    const old = new Date(Date.now() - 60_000);
    for (const name of ['a', 'b', 'src/c']) {
      await writeFile(join(root, name), name);
      await utimes(join(root, name), old, old); // stamped long before: trusted
    }
    const first = await scanTree(root, { limits, overLimit });
    expect(first.hashed).toBe(3);
    const again = await scanTree(root, { limits, overLimit, known: first.known });
    expect(again.hashed).toBe(0);
    expect(again.manifest.digest).toBe(first.manifest.digest);
    await writeFile(join(root, 'b'), 'B'); // same size, new stamp
    const changed = await scanTree(root, { limits, overLimit, known: again.known });
    expect(changed.hashed).toBe(1);
    expect(changed.manifest.digest).not.toBe(first.manifest.digest);
  });

  it('does not trust a stat stamped within RACY_MS of when it was remembered', () => {
    const now = 1_000_000;
    const stats = (mtimeMs: number) => ({ size: 1, mtimeMs, ino: 7, mode: 0o100644 }) as Stats;
    expect(trustedStatKey(stats(now - RACY_MS / 2), now)).toBeUndefined();
    expect(trustedStatKey(stats(now + 5), now)).toBeUndefined();
    expect(trustedStatKey(stats(now - 10 * RACY_MS), now)).toBe(statKey(stats(now - 10 * RACY_MS)));
  });

  it('calls overLimit before hashing a tree with too many entries or bytes', async () => {
    await writeFile(join(root, 'a'), 'x'.repeat(10));
    await writeFile(join(root, 'b'), 'x'.repeat(10));
    await expect(scanTree(root, { limits: { bytes: 15, files: 10 }, overLimit })).rejects.toThrow(/more than 15 bytes/);
    await expect(scanTree(root, { limits: { bytes: 100, files: 1 }, overLimit })).rejects.toThrow(/more than 1 files/);
  });
});

describe('snapshot manifests', () => {
  const file = (path: string, content = path) =>
    ({ type: 'file', path, sha256: sha256Hex(content), size: content.length, mode: 0o644 }) as const;

  it('has one digest for one tree, whatever order its entries come in', () => {
    const entries = [
      { type: 'dir', path: 'src' } as const,
      file('src/a'),
      file('b'),
      { type: 'symlink', path: 'l', target: 'b' } as const,
    ];
    const a = buildManifest(entries);
    expect(buildManifest([...entries].reverse()).digest).toBe(a.digest);
    expect(parseManifest(a.digest, a.text).entries).toEqual(a.entries);
    expect(buildManifest([...entries, file('c')]).digest).not.toBe(a.digest);
  });

  it('refuses stored text that does not match its digest or would write outside the tree', () => {
    const a = buildManifest([file('a')]);
    expect(() => parseManifest(a.digest, a.text.replace('"a"', '"b"'))).toThrow(/does not match its digest/);
    const forged = (entries: unknown[]) => {
      const text = JSON.stringify({ cairnSnapshot: 1, entries });
      return () => parseManifest(`sha256:${sha256Hex(text)}`, text);
    };
    expect(forged([['f', '../x', sha256Hex('x'), 1, 0o644]])).toThrow(/unsafe path/);
    // A file below a symlink would be written wherever the link points.
    expect(
      forged([
        ['l', 'etc', '/etc'],
        ['f', 'etc/passwd', sha256Hex('x'), 1, 0o644],
      ]),
    ).toThrow(/not inside a recorded directory/);
    expect(forged([['f', 'a', 'nothex', 1, 0o644]])).toThrow(/malformed/);
  });
});
