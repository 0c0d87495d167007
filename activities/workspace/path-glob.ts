/**
 * Globs on relative paths, as a workspace listing matches them: `*` and `?` within one segment,
 * `**` across any number of segments (none included), `{a,b}` alternatives. A pattern with no `/`
 * matches a file's name at any depth (as in .gitignore: `*.ts` finds every TypeScript file).
 * Pure, deterministic; worker side (workspace-files.ts).
 */

/** A predicate for `pattern` over relative paths (`src/a.ts`). */
export function pathGlob(pattern: string): (path: string) => boolean {
  const regex = new RegExp(`^${globSource(pattern)}$`);
  if (pattern.includes('/')) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
}

function globSource(pattern: string): string {
  let source = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (c === ',' && braces > 0) source += '|';
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return source + ')'.repeat(braces);
}
