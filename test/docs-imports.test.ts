/**
 * What the docs tell a person to import exists where they say: every `import { … } from
 * 'cairn-agents…'` in the README and docs/ names exports of that entry point, and no doc points a
 * user at a source file for something they import (`refusalCodeOf` from `shared/…`, when it is
 * exported from `cairn-agents/client`). Reads the entry points' sources; needs no server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';

const DOCS = [
  'README.md',
  'starter/README.md',
  ...readdirSync(join(PACKAGE_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (file: string) => readFileSync(join(PACKAGE_ROOT, file), 'utf8');

/** The names an entry point exports (its `export { … }` lists and `export const|function|class`), following `export *`. */
function exportsOf(entry: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(entry)) return names;
  seen.add(entry);
  const source = readFileSync(entry, 'utf8');
  for (const [, list] of source.matchAll(/export (?:type )?\{([^}]+)\}/g))
    for (const item of list!.split(',')) {
      const name = item
        .trim()
        .replace(/^type /, '')
        .split(/\s+as\s+/)
        .at(-1)!
        .trim();
      if (name) names.add(name);
    }
  for (const [, name] of source.matchAll(
    /export (?:declare )?(?:async )?(?:const|function|class|interface|type) (\w+)/g,
  ))
    names.add(name!);
  for (const [, from] of source.matchAll(/export \* from '([^']+)'/g))
    for (const name of exportsOf(join(entry, '..', from!.replace(/\.js$/, '.ts')), seen)) names.add(name);
  return names;
}

describe('the docs’ imports', () => {
  it('name only what their entry point exports', () => {
    const wrong: string[] = [];
    for (const file of DOCS)
      for (const [, list, sub] of text(file).matchAll(
        /import (?:type )?\{([^}]+)\} from 'cairn-agents(?:\/(\w+))?'/g,
      )) {
        const exported = exportsOf(join(PACKAGE_ROOT, 'entry', `${sub ?? 'index'}.ts`));
        for (const item of list!.split(',')) {
          const name = item
            .trim()
            .replace(/^type /, '')
            .split(/\s+as\s+/)[0]!
            .trim();
          if (name && !exported.has(name)) wrong.push(`${file}: ${name} from cairn-agents${sub ? `/${sub}` : ''}`);
        }
      }
    expect(wrong).toEqual([]);
  });

  it('never send a user to a source file for something an entry point exports', () => {
    const entryNames = new Map<string, string>();
    for (const entry of ['index', 'workflow', 'worker', 'client', 'http', 'testing'])
      for (const name of exportsOf(join(PACKAGE_ROOT, 'entry', `${entry}.ts`)))
        entryNames.set(name, entry === 'index' ? 'cairn-agents' : `cairn-agents/${entry}`);
    const pointers: string[] = [];
    for (const file of DOCS)
      for (const [whole, name] of text(file).matchAll(
        /`(\w+)\([^`]*\)` from `(?:shared|activities|workflows|planner|runtime|client|testing)\/[^`]+\.ts`/g,
      ))
        if (entryNames.has(name!)) pointers.push(`${file}: ${whole} (exported from ${entryNames.get(name!)})`);
    expect(pointers).toEqual([]);
  });

  it('show scriptStep.calls with the shape it takes: { name, arguments }', () => {
    expect(text('docs/models.md')).toContain('`calls([{ name, arguments }, …], text?)`');
  });
});
