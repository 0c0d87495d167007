/**
 * One real Temporal dev server and one workflow bundle per test run, shared by every
 * integration test (handed over with vitest's provide/inject). The server runs with
 * FAST_DEV_SERVER_CONFIG, as every embedded server does: activity round trips of ~10–20 ms
 * instead of ~100, and short back-off timers that fire on time instead of after ~1 s.
 * A machine without the Temporal CLI builds it here, once; test/temporal-cli-build.test.ts then
 * checks that build's lines instead of building it a second time.
 * On a fresh machine where it can (root, apt-get), it installs Debian's chromium for the browser
 * tests. CAIRN_UNIT_ONLY=1 skips all of it for quick unit-only runs; integration tests then fail loudly
 * instead of passing vacuously.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { installDebianPackagesIfMissing } from './support/debian-packages.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    /** The lines of the Temporal CLI build this setup ran (none when the machine had the CLI). */
    temporalCliBuild: string[];
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (process.env.CAIRN_UNIT_ONLY) return;
  const started = Date.now();
  const built: string[] = [];
  const log = (line: string) => {
    if (/^(Building|Built| {2}still building) the Temporal CLI/.test(line)) built.push(line);
    console.log(line);
  };
  const [server, bundle] = await Promise.all([
    startEmbeddedServer({ log }),
    bundleWorkflows(join(PACKAGE_ROOT, 'test/fixtures/workflows.ts')),
    installDebianPackagesIfMissing(log),
  ]);
  const bundlePath = join(PACKAGE_ROOT, '.cache', 'test-workflow-bundle.js');
  await mkdir(join(PACKAGE_ROOT, '.cache'), { recursive: true });
  await writeFile(bundlePath, bundle.code);
  console.log(`Temporal dev server ${server.address} and workflow bundle ready in ${Date.now() - started} ms`);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('temporalCliBuild', built);
  return () => server.close();
}
