/**
 * No file of the workflow side imports itself back, through any number of others: workflows/
 * (with its contract, workflows/contract/), planner/ and shared/ (types-only imports count too — a
 * circle of types is a circle a reader must follow). A circle means no file of it can be read,
 * tested or moved on its own; the run's contract (workflows/contract/) exists so that workflows/ needs none.
 */
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, importsIn, sources } from './support/source-imports.js';

/** sources() reads a folder with its subfolders, so workflows/ brings workflows/contract/. */
const FOLDERS = ['shared', 'planner', 'workflows'];

describe('import cycles contract', () => {
  it('workflows/ (its contract too), planner/ and shared/ import in no circle, within or across them', async () => {
    const files = (await Promise.all(FOLDERS.map((folder) => sources(folder)))).flat();
    const graph = await importGraph(files);
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].flat().length).toBeGreaterThan(200);
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('the check sees what it is for', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cyclesOf(graph({ a: ['a'] }))).toEqual([['a', 'a']]);
    expect(cyclesOf(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
    // Multi-line, type-only, re-export and dynamic imports are all imports.
    expect(
      importsIn(
        "import type {\n  A,\n  B,\n} from './a.js';\nexport * from '../b.js';\nconst c = await import('./c.js');",
      ),
    ).toEqual(['./a.js', '../b.js', './c.js']);
  });
});
