/**
 * Where this copy of Cairn lives: a checkout (run from its TypeScript sources, `.cache/` beside
 * it) or an installed package (compiled, inside someone's node_modules). Node-only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding Cairn's package.json: a checkout's root, or node_modules/cairn-agents. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** True when this code runs from its `.ts` sources (a checkout, through tsx or vitest), not from dist/. */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** True when Cairn is installed as a dependency (its root is inside a node_modules folder). */
export const INSTALLED = PACKAGE_ROOT.split(sep).includes('node_modules');

/** Cairn's version, from its package.json. */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'cairn-agents'
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`Cairn cannot find its own package.json above ${from}.`);
  }
}
