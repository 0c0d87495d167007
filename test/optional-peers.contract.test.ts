/**
 * The optional peers (shared/optional-peers.ts) stay optional: no module that the root,
 * `/workflow`, `/worker` or `/client` entry point loads imports one statically (a feature that
 * needs one at run time loads it with `import()` or `createRequire`), and only the entry point or
 * feature that names a peer loads it. Reads sources; needs no server. The installed package is
 * checked in test/package.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { OPTIONAL_PEERS } from '../shared/optional-peers.js';

/** Static value imports (not `import type`, not `import()`): what loading the file loads. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/^\s*(import|export)\s+(?!type\s)([^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)];
  // `import { type A, type B } from 'x'` loads nothing either (verbatimModuleSyntax would keep it; tsc elides it).
  return found
    .filter(
      ([, , clause]) => !clause || !/^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}\s*from\s+$/.test(`${clause.trim()} `),
    )
    .map((m) => m[3]!);
}

const peerOf = (spec: string) =>
  Object.keys(OPTIONAL_PEERS).find((peer) => spec === peer || spec.startsWith(`${peer}/`));

/** Every optional peer the file loads, statically and through the project's files it loads, with the chain that reaches it. */
function reachedPeers(entry: string): string[] {
  const reached: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      const peer = peerOf(spec);
      if (peer) reached.push(`${[...chain, relative(PACKAGE_ROOT, file)].join(' → ')} → ${spec}`);
      else if (spec.startsWith('.'))
        visit(join(file, '..', spec.replace(/\.js$/, '.ts')), [...chain, relative(PACKAGE_ROOT, file)]);
    }
  };
  visit(join(PACKAGE_ROOT, entry), []);
  return reached;
}

describe('optional peers, statically', () => {
  for (const entry of ['entry/index.ts', 'entry/workflow.ts', 'entry/worker.ts', 'entry/client.ts', 'entry/testing.ts'])
    it(`${entry} loads none of them`, () => expect(reachedPeers(entry)).toEqual([]));

  for (const entry of ['entry/http.ts', 'entry/mcp.ts', 'entry/a2a.ts'])
    it(`${entry} loads its peers only through requirePeers`, () => expect(reachedPeers(entry)).toEqual([]));

  it('are seen where they are loaded (the check sees through re-exports)', () => {
    expect(reachedPeers('servers/http/index.ts').join('\n')).toMatch(/servers\/http\/index\.ts → .* → @ag-ui\/core$/m);
    expect(reachedPeers('servers/http/index.ts').join('\n')).toMatch(/ → ai$/m);
    expect(reachedPeers('servers/mcp/index.ts').join('\n')).toMatch(/@modelcontextprotocol\/sdk\//);
  });
});
