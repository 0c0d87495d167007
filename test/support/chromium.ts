/**
 * A headless Chromium for UI tests, with no browser download (none can be fetched here): the
 * binary CHROMIUM_PATH names, else Debian's /usr/bin/chromium (`apt-get install chromium`), else
 * the one shipped inside the @sparticuz/chromium npm package (a devDependency, extracted to the
 * temp folder on first use). Driven with playwright-core, which downloads nothing itself.
 */
import { chromium, type Browser } from 'playwright-core';
import { isExecutable } from './debian-packages.js';

/** Flags that work on these machines (no GPU, no sandbox as root, nothing phoning home). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

export interface ChromiumBinary {
  readonly path: string;
  /** Where it came from, for messages. */
  readonly source: 'CHROMIUM_PATH' | 'Debian chromium' | '@sparticuz/chromium';
}

/** The browser binary to use, in the order above. */
export async function chromiumBinary(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumBinary> {
  if (env.CHROMIUM_PATH) return { path: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  if (await isExecutable('/usr/bin/chromium')) return { path: '/usr/bin/chromium', source: 'Debian chromium' };
  const { default: sparticuz } = await import('@sparticuz/chromium');
  return { path: await sparticuz.executablePath(), source: '@sparticuz/chromium' };
}

/**
 * Starts headless Chromium (a fresh profile in a temp folder, removed on close). A browser that
 * does not start fails with what to do about it.
 */
export async function launchChromium(): Promise<Browser> {
  const binary = await chromiumBinary();
  try {
    return await chromium.launch({
      executablePath: binary.path,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      // Quiet, it starts in ~1 s; on 2 shared cores beside three test files, a Temporal server and a
      // workflow bundle, CI saw it take over 30 s (playwright's default). Not what these tests check.
      timeout: 90_000,
    });
  } catch (error) {
    throw new Error(
      `Chromium from ${binary.source} (${binary.path}) did not start: ${(error as Error).message.split('\n')[0]}. ` +
        "Install Debian's (apt-get install -y chromium) or name another binary in CHROMIUM_PATH.",
      { cause: error },
    );
  }
}
