import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generatedDir, writeGeneratedEntry } from './agents-entry.js';

describe('writeGeneratedEntry', () => {
  it('never shows a reader a half-written entry while other processes rewrite it', async () => {
    // Three `cairn eval`s of one module start at once and share one entry file: each bundles what
    // it reads, and an empty or cut file is a bundle with no agentRun.
    const name = `test-entry-${process.pid}.js`;
    const text = `export const agentRun = ${JSON.stringify('x'.repeat(256 * 1024))};\n`;
    const file = await writeGeneratedEntry(name, text);
    const reads: Promise<string>[] = [];
    const writes: Promise<string>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(writeGeneratedEntry(name, text));
      reads.push(readFile(file, 'utf8'));
    }
    expect(await Promise.all(writes)).toEqual(writes.map(() => file));
    const seen = await Promise.all(reads);
    expect(seen.filter((read) => read !== text).map((read) => read.length)).toEqual([]);
    // No partial file is left behind.
    expect((await readdir(generatedDir())).filter((entry) => entry.startsWith(`${name}.`))).toEqual([]);
  });
});
