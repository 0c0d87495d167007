#!/usr/bin/env node
// The `cairn` command: the compiled CLI (dist/cli/main.js). In a checkout, `npm run build` makes it
// (npm ci does, through the prepare script); `npm run cairn -- …` runs the sources instead.
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  console.error('cairn: dist/ is missing; run `npm run build` in this checkout first (npm ci does it).');
  process.exit(1);
}
