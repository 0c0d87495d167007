#!/usr/bin/env node
// The `cairn` command: the compiled CLI (dist/cli/main.js). In a checkout, `npm run build` makes it
// (npm ci does, through the prepare script); `npm run cairn -- …` runs the sources instead.
// Plain JavaScript any Node can parse: an older Node gets one line, not a loader's stack trace.
// On an older Node, the Node 24 that `npm ci` installed (the `node` package, in the checkout's or
// the project's node_modules/.bin) runs it instead, so `node cairn/bin/cairn.js …` works as written.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const { existsSync } = await import('node:fs');
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const bin = (path) => fileURLToPath(new URL(path, import.meta.url));
  // This package's own node_modules (a checkout), then the project's it is installed in.
  const node = [bin('../node_modules/.bin/node'), bin('../../.bin/node')].find(existsSync);
  if (!node || process.env.CAIRN_REEXEC) {
    console.error(
      `cairn: Use Node 24 (this is Node ${process.versions.node}${node ? `, and so is ${node}` : ''}); Cairn and its projects run TypeScript directly, which Node 24 does. \`npm ci\` in a checkout installs it (node_modules/.bin/node).`,
    );
    process.exit(1);
  }
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, CAIRN_REEXEC: '1' },
  });
  // A process manager's signal reaches this process: pass it on, and end as the child does.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
  await new Promise(() => {});
}
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  console.error('cairn: dist/ is missing; run `npm run build` in this checkout first (npm ci does it).');
  process.exit(1);
}
