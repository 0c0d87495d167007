import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import { applyHunks, parsePatch } from './unified-diff.js';

const apply = (content: string | null, patch: string) => {
  const [file] = parsePatch(patch);
  return applyHunks('f', content, file!.hunks);
};

describe('parsePatch', () => {
  it('reads paths of git, diff -u (with timestamps) and quoted names', () => {
    const patches = parsePatch(
      [
        'diff --git a/x.txt b/y.txt',
        'similarity index 90%',
        'rename from x.txt',
        'rename to y.txt',
        'diff --git a/run.sh b/run.sh',
        'new file mode 100755',
        '--- /dev/null',
        '+++ b/run.sh',
        '@@ -0,0 +1 @@',
        '+echo',
        '--- plain.txt\t2024-01-01 00:00:00.000000000 +0000',
        '+++ plain.txt\t2024-01-02 00:00:00.000000000 +0000',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        '--- "a/caf\\303\\251.txt"',
        '+++ "b/caf\\303\\251.txt"',
        '@@ -1 +1 @@',
        '-a',
        '+b',
      ].join('\n'),
    );
    expect(patches.map((p) => [p.oldPath, p.newPath, p.mode ?? null])).toEqual([
      ['x.txt', 'y.txt', null],
      [null, 'run.sh', 0o755],
      ['plain.txt', 'plain.txt', null],
      ['café.txt', 'café.txt', null],
    ]);
  });

  it('refuses lines outside any hunk (counts too small) and binary patches are flagged', () => {
    const undercounted = '--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+b\n-c\n+d\n';
    expect(() => parsePatch(undercounted)).toThrow(/outside any hunk/);
    expect(() => parsePatch(undercounted)).toThrow(ToolFailure);
    expect(parsePatch('diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n')[0]!.binary).toBe(true);
  });
});

describe('applyHunks', () => {
  it('applies several hunks in order and keeps the missing final newline', () => {
    const file = 'a\nb\nc\nd\ne\nf\ng\nh';
    const patch =
      '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -7,2 +7,2 @@\n g\n-h\n\\ No newline at end of file\n+H\n\\ No newline at end of file\n';
    expect(apply(file, patch)).toBe('A\nb\nc\nd\ne\nf\ng\nH');
  });

  it('adds or removes the final newline as the markers say', () => {
    expect(apply('x', '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n')).toBe('x\n');
    expect(apply('x\n', '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n')).toBe('x');
  });

  it('forgives wrong counts, a bare @@ and trailing whitespace, but not different text', () => {
    expect(apply('a\nb\nc\n', '--- a/f\n+++ b/f\n@@ -1,7 +1,9 @@\n a  \n-b\n+B\n')).toBe('a\nB\nc\n');
    expect(apply('a\nb\nc\nb\n', '--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n c\n-b\n+X\n')).toBe('a\nb\nc\nX\n');
    expect(apply('a\nb\n', '--- a/f\n+++ b/f\n@@\n-b\n+c\n')).toBe('a\nc\n');
    expect(() => apply('a\nb\n', '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-B\n+c\n')).toThrow(/does not apply/);
  });

  it('picks the occurrence nearest the header when the old lines occur twice', () => {
    const file = 'x\nsame\nx\nx\nx\nx\nsame\nx\n';
    expect(apply(file, '--- a/f\n+++ b/f\n@@ -6,1 +6,1 @@\n-same\n+moved\n')).toBe('x\nsame\nx\nx\nx\nx\nmoved\nx\n');
  });
});
