/**
 * What an evaluation keeps between runs. A baseline lane run is deterministic: the agent as
 * recorded, served the recorded model turns, tools and people. So its outcome (the run's decoded
 * history, whom it would have asked, what its people answered) is kept under a key of the agent's
 * code, the case's recording and Cairn's version, and the next evaluation of the same agent on the
 * same cases (any candidate, any eval module) reads it instead of running the lane again. A
 * baseline that ran a tool live or called a model (a dataset case) is never kept. The lanes'
 * workflow bundles are kept here too (runtime/workflow-bundle.ts). `cairn eval --no-cache` reads
 * and writes none of it. Node-only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EvalEvent } from '../../shared/eval/recording.js';
import type { JsonValue } from '../../shared/json/json.js';
import { PACKAGE_VERSION } from '../package-root.js';
import type { NewAsk } from './eval-results.js';

/** $XDG_CACHE_HOME/cairn-eval when set, else the project's node_modules/.cache/cairn-eval, else ~/.cache/cairn-eval. */
export function evalCacheDir(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'cairn-eval');
  if (existsSync(join(cwd, 'node_modules'))) return join(cwd, 'node_modules', '.cache', 'cairn-eval');
  return join(homedir(), '.cache', 'cairn-eval');
}

/** A baseline lane run as the report needs it. */
export interface CachedLane {
  readonly workflowId: string;
  readonly events: readonly EvalEvent[];
  readonly newAsks: readonly NewAsk[];
  readonly drift: readonly string[];
  /** The answers the baseline's people gave, by question: the candidate's same questions get them. */
  readonly answers: readonly (readonly [question: string, answer: JsonValue])[];
}

export class BaselineCache {
  constructor(
    readonly dir: string,
    /** The baseline agent's code (agentDigest). */
    readonly agent: string,
  ) {}

  /** The key of one case's baseline: its run input and every recording it is served from. */
  key(parts: readonly string[]): string {
    const hash = createHash('sha256').update(`${PACKAGE_VERSION}\0${this.agent}`);
    for (const part of parts) hash.update(`\0${part}`);
    return hash.digest('hex').slice(0, 40);
  }

  has(key: string | undefined): boolean {
    return key !== undefined && existsSync(this.#file(key));
  }

  async get(key: string): Promise<CachedLane | undefined> {
    try {
      return JSON.parse(await readFile(this.#file(key), 'utf8')) as CachedLane;
    } catch {
      return undefined; // none yet, or unreadable: the lane runs
    }
  }

  /** Keeps `lane` under `key`; a cache that cannot be written only costs the next evaluation time. */
  async put(key: string, lane: CachedLane): Promise<void> {
    const file = this.#file(key);
    const partial = `${file}.${process.pid}-${randomUUID()}`;
    try {
      await mkdir(join(this.dir, 'baselines'), { recursive: true });
      await writeFile(partial, JSON.stringify(lane));
      await rename(partial, file);
    } catch {}
  }

  #file(key: string): string {
    return join(this.dir, 'baselines', `${key}.json`);
  }
}

/**
 * A digest of the baseline lane's code: the text of every file its workflow bundle includes but
 * the generated entry and the eval module (which changes with each candidate), and the agent's own
 * definition (its instructions, tools, schemas, function sources), for an agent the module defines.
 */
export async function agentDigest(
  files: readonly string[],
  exclude: readonly string[],
  agent: unknown,
): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...files].filter((file) => !exclude.includes(file)).sort())
    if (
      await stat(file).then(
        (info) => info.isFile(),
        () => false,
      )
    )
      hash
        .update(`${file}\0`)
        .update(await readFile(file))
        .update('\0');
  shapeInto(hash, agent, new Map());
  return hash.digest('hex');
}

function shapeInto(hash: ReturnType<typeof createHash>, value: unknown, seen: Map<object, number>): void {
  if (value === null || typeof value !== 'object') {
    hash.update(typeof value === 'function' ? `f:${value.toString()};` : `${typeof value}:${String(value)};`);
    return;
  }
  const at = seen.get(value);
  if (at !== undefined) {
    hash.update(`#${at};`);
    return;
  }
  seen.set(value, seen.size);
  if (value instanceof Map || value instanceof Set) {
    hash.update(value instanceof Map ? 'M{' : 'S{');
    for (const item of value) shapeInto(hash, item, seen);
    hash.update('}');
    return;
  }
  hash.update(`${Array.isArray(value) ? '' : (value.constructor?.name ?? '')}{`);
  for (const key of Object.keys(value).sort()) {
    hash.update(`${key}=`);
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[key];
    } catch {
      item = '<unreadable>';
    }
    shapeInto(hash, item, seen);
  }
  hash.update('}');
}
