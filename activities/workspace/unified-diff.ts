/**
 * Unified diffs as `git diff` and `diff -u` write them: parsed into file patches, and applied to
 * text. A hunk is placed where its header says, or at the nearest place its old lines match (as
 * GNU patch does with an offset); trailing whitespace is forgiven when nothing matches exactly.
 * Counts in a hunk header that disagree with its lines are forgiven too (models miscount); a bare
 * `@@` with no numbers is searched for after the previous hunk. Anything that cannot be placed is a
 * ToolFailure `invalid_arguments` whose hint shows the hunk and the file's lines where it was
 * expected. Pure (no I/O), deterministic; worker side (workspace-files.ts applies it).
 */
import { ToolFailure } from '../../shared/failures/tool-failure.js';

export interface HunkLine {
  readonly kind: ' ' | '-' | '+';
  readonly text: string;
}

export interface Hunk {
  /** The `@@` line. */
  readonly header: string;
  /** 1-based; undefined for a bare `@@`. */
  readonly oldStart?: number;
  /** The header's counts (undefined for a bare `@@`): `-0,0` is a file that did not exist (diff -N). */
  readonly oldCount?: number;
  readonly newCount?: number;
  readonly lines: readonly HunkLine[];
  /** `\ No newline at end of file` after the new side's last line. */
  readonly newNoEol: boolean;
}

export interface FilePatch {
  /** Relative path before; null for a new file (`/dev/null`). */
  readonly oldPath: string | null;
  /** Relative path after; null for a deleted file. */
  readonly newPath: string | null;
  readonly hunks: readonly Hunk[];
  /** From `new file mode` / `new mode`. */
  readonly mode?: 0o644 | 0o755;
  readonly binary: boolean;
}

/** A `---`/`+++` timestamp at the Unix epoch (in any time zone): diff -N's missing file. */
const EPOCH = /\t(1970-01-01|1969-12-31) /;
const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

const malformed = (why: string): never => {
  throw ToolFailure.invalidArguments(`The patch is not a unified diff I can read: ${why}.`, {
    message: `The patch is not a unified diff I can read: ${why}. Send a unified diff as \`git diff\` writes it: "--- a/path" and "+++ b/path" lines, then hunks starting "@@ -start,count +start,count @@" whose lines begin with " ", "-" or "+" (use --- /dev/null for a new file).`,
  });
};

/** Parses a unified diff into its file patches, in order. */
export function parsePatch(text: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const patches: FilePatch[] = [];
  let current:
    | {
        epoch?: { old: boolean; new: boolean };
        oldPath?: string | null;
        newPath?: string | null;
        hunks: Hunk[];
        mode?: 0o644 | 0o755;
        binary: boolean;
        git: boolean;
      }
    | undefined;
  const flush = () => {
    if (current === undefined) return;
    if (current.oldPath === undefined || current.newPath === undefined)
      malformed('a file section has no "---"/"+++" lines');
    let oldPath = current.oldPath as string | null;
    let newPath = current.newPath as string | null;
    // git's a/ and b/ prefixes; diff -u has none.
    if (
      current.git ||
      ((oldPath === null || oldPath.startsWith('a/')) && (newPath === null || newPath.startsWith('b/')))
    ) {
      if (oldPath?.startsWith('a/')) oldPath = oldPath.slice(2);
      if (newPath?.startsWith('b/')) newPath = newPath.slice(2);
    }
    // diff -N writes a missing side as an empty file stamped with the epoch.
    const all = (count: 'oldCount' | 'newCount') =>
      current!.hunks.length > 0 && current!.hunks.every((h) => h[count] === 0);
    if (!current.git && current.epoch?.old && all('oldCount')) oldPath = null;
    if (!current.git && current.epoch?.new && all('newCount')) newPath = null;
    if (oldPath === null && newPath === null) malformed('a file goes from /dev/null to /dev/null');
    patches.push({
      oldPath,
      newPath,
      hunks: current.hunks,
      binary: current.binary,
      ...(current.mode && { mode: current.mode }),
    });
    current = undefined;
  };
  const fresh = (git: boolean) => {
    flush();
    current = { hunks: [], binary: false, git };
    return current;
  };
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.startsWith('diff --git ')) {
      const c = fresh(true);
      const names = /^diff --git (?:"?a\/)(.+?)"? (?:"?b\/)(.+?)"?$/.exec(line);
      if (names) [c.oldPath, c.newPath] = [`a/${names[1]}`, `b/${names[2]}`];
      i++;
    } else if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const c = current && current.hunks.length === 0 && current.git ? current : fresh(false);
      c.oldPath = headerPath(line.slice(4));
      c.newPath = headerPath(lines[i + 1]!.slice(4));
      c.epoch = { old: EPOCH.test(line), new: EPOCH.test(lines[i + 1]!) };
      i += 2;
    } else if (line.startsWith('@@')) {
      if (current?.oldPath === undefined) malformed(`a hunk (${line}) comes before any "---"/"+++" file header`);
      i = readHunk(lines, i, current!.hunks);
    } else if (
      current?.git &&
      current.hunks.length === 0 &&
      /^(new file mode|deleted file mode|new mode|rename from|rename to|copy from|copy to) /.test(line)
    ) {
      const [, what = '', value = ''] =
        /^(new file mode|deleted file mode|new mode|rename from|rename to|copy from|copy to) (.*)$/.exec(line)!;
      if (what === 'new file mode') current.oldPath = null;
      if (what === 'deleted file mode') current.newPath = null;
      if (what === 'new file mode' || what === 'new mode') current.mode = value.endsWith('755') ? 0o755 : 0o644;
      if (what === 'rename from' || what === 'copy from') current.oldPath = `a/${unquote(value)}`;
      if (what === 'rename to' || what === 'copy to') current.newPath = `b/${unquote(value)}`;
      if (what.startsWith('copy')) malformed('copies ("copy from") are not supported; write the new file instead');
      i++;
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      if (current) current.binary = true;
      i++;
    } else if (current && current.hunks.length > 0 && /^[ +-]/.test(line) && line !== '-- ') {
      malformed(
        `line ${i + 1} (${JSON.stringify(line.slice(0, 80))}) is outside any hunk: do the counts in the hunk's @@ header match its lines?`,
      );
    } else i++; // a commit message, "index ...", a format-patch signature: not ours to read
  }
  flush();
  if (patches.length === 0) malformed('it has no file header ("--- a/path" then "+++ b/path")');
  return patches;
}

/** Reads the hunk whose header is `lines[start]`; returns the index after it. */
function readHunk(lines: readonly string[], start: number, into: Hunk[]): number {
  const header = lines[start]!;
  const numbers = HUNK.exec(header);
  const oldCount = numbers ? Number(numbers[2] ?? 1) : Number.POSITIVE_INFINITY;
  const newCount = numbers ? Number(numbers[4] ?? 1) : Number.POSITIVE_INFINITY;
  const body: HunkLine[] = [];
  let oldSeen = 0;
  let newSeen = 0;
  let newNoEol = false;
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('\\')) {
      if (body.at(-1)?.kind !== '-') newNoEol = true;
      continue;
    }
    if (oldSeen >= oldCount && newSeen >= newCount) break;
    if (line.startsWith('@@') || line.startsWith('diff --git ')) break;
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) break;
    // An empty line is a blank context line whose leading space an editor trimmed.
    const kind = line === '' ? ' ' : line[0];
    if (kind !== ' ' && kind !== '-' && kind !== '+') break;
    body.push({ kind, text: line.slice(1) });
    if (kind !== '+') oldSeen++;
    if (kind !== '-') newSeen++;
  }
  into.push({ header, lines: body, newNoEol, ...(numbers && { oldStart: Number(numbers[1]), oldCount, newCount }) });
  return i;
}

/** A path from a `---`/`+++` line: a tab and a timestamp may follow; git quotes unusual names. */
function headerPath(raw: string): string | null {
  const path = raw.startsWith('"') ? unquote(raw.slice(0, raw.lastIndexOf('"') + 1)) : raw.split('\t')[0]!.trimEnd();
  return path === '/dev/null' ? null : path;
}

/** git's C-style quoting (`"a/caf\303\251.txt"`), undone. */
function unquote(value: string): string {
  if (!(value.startsWith('"') && value.endsWith('"') && value.length >= 2)) return value;
  const bytes: number[] = [];
  const body = value.slice(1, -1);
  const escapes: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...new TextEncoder().encode(c));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else bytes.push(escapes[body[++i] ?? ''] ?? 92);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * Applies `hunks` to `content` (null: the file does not exist yet) and returns the new text.
 * `path` only names the file in a refusal.
 */
export function applyHunks(path: string, content: string | null, hunks: readonly Hunk[]): string {
  const lines = content === null || content === '' ? [] : content.split('\n');
  let eol = true;
  if (lines.length > 0) {
    if (lines.at(-1) === '') lines.pop();
    else eol = false;
  }
  const out: string[] = [];
  let position = 0;
  let offset = 0;
  hunks.forEach((hunk, index) => {
    const old = hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    const expected =
      hunk.oldStart === undefined ? position : Math.max(position, hunk.oldStart - (old.length === 0 ? 0 : 1) + offset);
    const at = find(lines, old, position, expected);
    if (at < 0) throw notApplied(path, hunk, index, hunks.length, lines, expected);
    out.push(...lines.slice(position, at));
    let k = at;
    for (const line of hunk.lines) {
      if (line.kind === ' ')
        out.push(lines[k++]!); // the file's own line, even when matched loosely
      else if (line.kind === '-') k++;
      else out.push(line.text);
    }
    offset += at - expected;
    position = at + old.length;
    if (position === lines.length) eol = !hunk.newNoEol;
  });
  out.push(...lines.slice(position));
  return out.length === 0 ? '' : out.join('\n') + (eol ? '\n' : '');
}

/** Where `old` occurs at or after `from`, nearest `near`: exactly, else ignoring trailing whitespace. */
function find(lines: readonly string[], old: readonly string[], from: number, near: number): number {
  const last = lines.length - old.length;
  if (last < from) return -1;
  const start = Math.min(Math.max(near, from), last);
  for (const same of [(a: string, b: string) => a === b, (a: string, b: string) => a.trimEnd() === b.trimEnd()]) {
    const fits = (p: number) => old.every((line, j) => same(lines[p + j]!, line));
    for (let d = 0; start - d >= from || start + d <= last; d++) {
      if (start + d <= last && fits(start + d)) return start + d;
      if (d > 0 && start - d >= from && fits(start - d)) return start - d;
    }
  }
  return -1;
}

/** The refusal for a hunk that fits nowhere, with the hunk and the file's lines around where it belonged. */
function notApplied(
  path: string,
  hunk: Hunk,
  index: number,
  count: number,
  lines: readonly string[],
  expected: number,
): ToolFailure {
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  const shown = [hunk.header, ...hunk.lines.slice(0, 60).map((l) => clip(l.kind + l.text))];
  if (hunk.lines.length > 60) shown.push(`… (${hunk.lines.length - 60} more lines)`);
  const first = hunk.lines.find((l) => l.kind !== '+' && l.text.trim() !== '');
  const seen = first ? lines.flatMap((line, n) => (line.trimEnd() === first.text.trimEnd() ? [n] : [])) : [];
  const around =
    seen.length > 0 ? seen.reduce((a, b) => (Math.abs(b - expected) < Math.abs(a - expected) ? b : a)) : expected;
  const from = Math.max(0, around - 5);
  const to = Math.min(lines.length, around + hunk.lines.length + 5);
  const current = lines.slice(from, to).map((line, n) => `${String(from + n + 1).padStart(6)}| ${clip(line)}`);
  const where =
    seen.length === 0
      ? first
        ? `its first old line ${JSON.stringify(clip(first.text))} is nowhere in the file`
        : 'it has no old lines to place it by'
      : `its first old line is at line${seen.length > 1 ? 's' : ''} ${seen
          .slice(0, 5)
          .map((n) => n + 1)
          .join(', ')}, but the lines after it differ`;
  const title = `Hunk ${index + 1} of ${count} for ${path} does not apply: ${where}.`;
  return ToolFailure.invalidArguments(title, {
    message: [
      `${title} Nothing was changed (a patch applies whole or not at all). The hunk:`,
      ...shown,
      lines.length === 0 ? 'The file is empty.' : `The file's lines ${from + 1}–${to} now (of ${lines.length}):`,
      ...current,
      'Read the file again and send a patch whose context and "-" lines match it exactly.',
    ].join('\n'),
  });
}
