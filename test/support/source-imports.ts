/**
 * The project's own source files and what each imports, read from the text (static, re-export and
 * dynamic imports; no compiler needed): what the layering and import-cycle contracts check.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../../runtime/package-root.js';

/** The `.ts` files under `folder` (relative to the package root), tests left out unless asked for. */
export async function sources(folder: string, options: { tests?: boolean } = {}): Promise<string[]> {
  const entries = await readdir(join(PACKAGE_ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && (options.tests || !e.name.endsWith('.test.ts')))
    .map((e) => join(e.parentPath, e.name));
}

/** The module specifiers `file` imports or re-exports, as written. */
export async function importsOf(file: string): Promise<string[]> {
  return importsIn(await readFile(file, 'utf8'));
}

export function importsIn(text: string): string[] {
  const statics = [
    ...text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm),
  ].map((m) => m[1] ?? m[2]!);
  const dynamics = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
  return [...statics, ...dynamics];
}

/** Which of `files` each of them imports (relative specifiers only, `.js` read as the `.ts` source), paths relative to the package root. */
export async function importGraph(files: readonly string[]): Promise<Map<string, string[]>> {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = (await importsOf(file))
      .filter((spec) => spec.startsWith('./') || spec.startsWith('../'))
      .map((spec) => join(dirname(file), spec.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target));
    edges.set(
      relative(PACKAGE_ROOT, file),
      [...new Set(targets)].map((target) => relative(PACKAGE_ROOT, target)),
    );
  }
  return edges;
}

/**
 * Import cycles in `edges`, each as the files on it, first file repeated at the end. A graph has a
 * cycle exactly when a depth-first walk meets a file already on its path, so none is missed
 * (though a knot of several cycles may be reported by one of them).
 */
export function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    for (const next of edges.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next]);
      else if (!done.has(next)) visit(next, [...path, next]);
    }
    done.add(file);
  };
  for (const file of edges.keys()) if (!done.has(file)) visit(file, [file]);
  return cycles;
}
