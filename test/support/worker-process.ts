/** A Cairn worker in its own process (a test fixture run with tsx), so a test can SIGKILL or SIGSTOP it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PACKAGE_ROOT } from '../../runtime/package-root.js';
import { serverAddress } from './temporal.js';

/**
 * Starts `test/fixtures/<fixture>` with TEMPORAL_ADDRESS, BUNDLE and `env`; resolves once it
 * prints "worker ready". The process is added to `started`, for the test to kill when done.
 */
export function startWorkerProcess(
  fixture: string,
  env: Record<string, string>,
  started: ChildProcess[],
  address = serverAddress(),
): Promise<ChildProcess> {
  // Node itself with tsx's loader (not the tsx launcher, which would leave its node child alive on SIGKILL).
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'test/fixtures', fixture)], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: address, BUNDLE: inject('workflowBundlePath'), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker ${fixture} exited (${code})`)));
  });
}
