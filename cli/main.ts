/** The `cairn` executable's entry (`npm run cairn -- <args>`, bin/cairn.js). Node-only. */
import { cairn } from './cairn.js';

// @temporalio/client's retry interceptor may retry a call on a connection the command has already
// closed, and grpc-js then throws from a timer. The command is past needing it: not a crash.
process.on('uncaughtException', (error) => {
  if (error instanceof Error && error.message === 'Channel has been shut down') return;
  console.error(error);
  process.exit(1);
});

const code = await cairn(process.argv.slice(2));
process.exitCode = code;
// A connection left open by a library must not keep a finished command alive.
setTimeout(() => process.exit(code), 2_000).unref();
