/** `cairn …` as a subprocess on this Node, against the test server, without other Temporal or Cairn settings. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../runtime/package-root.js';
import { serverAddress } from './temporal.js';

const TSX = join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function cairnCli(args: readonly string[], timeout: number): Promise<CliOutcome> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_') && !key.startsWith('CAIRN_')),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX, 'cli/main.ts', ...args],
      { cwd: PACKAGE_ROOT, env: { ...env, TEMPORAL_ADDRESS: serverAddress() }, timeout },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
