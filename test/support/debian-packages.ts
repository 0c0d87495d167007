/**
 * What the tests need from Debian that a fresh machine may lack: Chromium for the browser tests
 * (the @sparticuz/chromium fallback alone crashes at launch where the system libraries Chromium
 * needs are missing) and bubblewrap for the workspace sandbox (docs/workspaces.md). On a machine
 * without them, as root with apt-get (a fresh CI machine or container), globalSetup installs them
 * once per test run, in one apt-get call, before any test starts. Anywhere else it changes nothing
 * and the tests say what to install.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';

/** Each package, the binary that shows it is there, and who needs it. */
const PACKAGES = [
  { name: 'chromium', binary: '/usr/bin/chromium', for: 'the browser tests', skip: () => !!process.env.CHROMIUM_PATH },
  { name: 'bubblewrap', binary: '/usr/bin/bwrap', for: 'the workspace sandbox tests', skip: () => false },
];

export async function installDebianPackagesIfMissing(log: (line: string) => void): Promise<void> {
  const missing = [];
  for (const pkg of PACKAGES) if (!pkg.skip() && !(await isExecutable(pkg.binary))) missing.push(pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !(await isExecutable('/usr/bin/apt-get'))) return;
  const names = missing.map((pkg) => pkg.name);
  log(
    `Not on this machine: ${missing.map((p) => `${p.name} (${p.for})`).join(', ')}; apt-get install -y ${names.join(' ')}`,
  );
  const apt = (...args: string[]) =>
    promisify(execFile)('apt-get', ['-q', ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  try {
    await apt('update');
    await apt('install', '-y', ...names);
  } catch (error) {
    log(
      `Installing ${names.join(' ')} failed, so the tests that need them will fail: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/** True when `path` is a file this process may run. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
