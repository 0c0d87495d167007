#!/usr/bin/env node
// The `cairn` command: the compiled CLI (dist/cli/main.js). In a checkout, `npm run build` makes it
// (npm ci does, through the prepare script); `npm run cairn -- …` runs the sources instead.
// Plain JavaScript any Node can parse: an older Node gets one line, not a loader's stack trace.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `cairn: Use Node 24 (this is Node ${process.versions.node}); Cairn and its projects run TypeScript directly, which Node 24 does.`,
  );
  process.exit(1);
}
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  console.error('cairn: dist/ is missing; run `npm run build` in this checkout first (npm ci does it).');
  process.exit(1);
}
