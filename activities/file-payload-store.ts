/**
 * A PayloadStore on the file system: one file per stored result, named by a random UUID (the
 * ref), in a directory the worker is configured with. Every worker that may run `read_result`
 * must see the same directory (one machine, or a shared volume); use another PayloadStore for
 * workers spread over machines. Old files are removed by `prune`. Worker side only.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  PAYLOAD_REF as REF,
  payloadSlice,
  type PayloadSlice,
  type PayloadStore,
  type StoredPayloadInfo,
} from '../shared/tools/payload-store.js';

export interface FilePayloadStoreOptions {
  /** Where results are written (created if absent). */
  readonly directory: string;
  /** Texts larger than this many characters are not stored (`put` throws). Default 64 million. */
  readonly maxChars?: number;
}

export class FilePayloadStore implements PayloadStore {
  readonly directory: string;
  readonly #maxChars: number;

  constructor(options: FilePayloadStoreOptions) {
    this.directory = options.directory;
    this.#maxChars = options.maxChars ?? 64_000_000;
  }

  async put(text: string, info: StoredPayloadInfo): Promise<string> {
    if (text.length > this.#maxChars)
      throw new Error(`A result of ${text.length} characters is over this store's limit of ${this.#maxChars}.`);
    const ref = randomUUID();
    await mkdir(this.directory, { recursive: true });
    // The metadata line first, so an operator can tell what a file is; the text follows it.
    await writeFile(this.#file(ref), `${JSON.stringify(info)}\n${text}`, 'utf8');
    return ref;
  }

  async read(ref: string, offset: number, length: number): Promise<PayloadSlice | undefined> {
    if (!REF.test(ref)) return undefined; // also keeps paths out of the ref
    let content: string;
    try {
      content = await readFile(this.#file(ref), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return payloadSlice(content.slice(content.indexOf('\n') + 1), offset, length);
  }

  /**
   * Removes stored results older than `maxAgeMs`; returns how many were removed. Ages are read on
   * the file system's own clock (a shared volume's server may not keep the worker's time), unless
   * `now` is given.
   */
  async prune(maxAgeMs: number, now?: number): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch {
      return 0;
    }
    now ??= await this.#clock();
    let removed = 0;
    for (const name of names) {
      if (!name.endsWith('.json') || !REF.test(name.slice(0, -5))) continue;
      const file = join(this.directory, name);
      const { mtimeMs } = await stat(file);
      if (now - mtimeMs > maxAgeMs) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** The file system's time now: the modification time of a file written this moment. */
  async #clock(): Promise<number> {
    const probe = join(this.directory, `.clock-${randomUUID()}`);
    try {
      await writeFile(probe, '');
      return (await stat(probe)).mtimeMs;
    } catch {
      return Date.now();
    } finally {
      await rm(probe, { force: true });
    }
  }

  #file(ref: string): string {
    return join(this.directory, `${ref}.json`);
  }
}
