/**
 * Where the evaluated agent is defined: the module (one the eval module imports by a relative
 * path) and the export that hold the very agent object the eval module names. The baseline lane's
 * workflow entry then imports the agent from there instead of the eval module, so its bundle
 * (and, when the candidate changes no code, the one worker of both lanes) does not change with the
 * eval module: a second eval module of the same agent reuses the kept bundle instead of bundling
 * again (eval-lanes.ts). Undefined when it cannot be told for sure (the agent defined in the eval
 * module itself, or imported from a package): the entry imports the eval module, as before.
 * Node-only.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The file and the export name of a module that exports the agent. */
export interface AgentSource {
  readonly file: string;
  readonly exportName: string;
}

/** What a relative specifier may name on disk: as written, and the TypeScript source of a `.js` specifier (as tsx and Node's type stripping resolve it). */
function onDisk(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const tries = [
    base,
    ...(/\.js$/.test(base) ? [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx')] : []),
    ...(/\.mjs$/.test(base) ? [base.replace(/\.mjs$/, '.mts')] : []),
    ...(/\.[cm]?[jt]sx?$/.test(base) ? [] : [`${base}.ts`, `${base}.js`, `${base}.mts`, `${base}.mjs`]),
  ];
  return tries.find((path) => existsSync(path));
}

/** The relative modules `modulePath` imports (static `import … from '…'` and `export … from '…'`). */
async function relativeImports(modulePath: string): Promise<string[]> {
  const text = await readFile(modulePath, 'utf8');
  const specifiers = [...text.matchAll(/\b(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (match) => match[1]!,
  );
  return [...new Set(specifiers)].flatMap((specifier) => onDisk(modulePath, specifier) ?? []);
}

/**
 * The module among those the eval module imports whose export *is* `agent` (the same object,
 * so the same code: Node loaded that module once for both), or undefined.
 */
export async function findAgentSource(modulePath: string, agent: unknown): Promise<AgentSource | undefined> {
  let files: string[];
  try {
    files = await relativeImports(modulePath);
  } catch {
    return undefined;
  }
  for (const file of files) {
    if (file === modulePath) continue;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch {
      continue;
    }
    const name = Object.keys(exports).find((key) => /^[A-Za-z_$][\w$]*$/.test(key) && exports[key] === agent);
    if (name) return { file, exportName: name };
  }
  return undefined;
}
