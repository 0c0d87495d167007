/** The `cairn` executable's entry (`npm run cairn -- <args>`, bin/cairn.js). Node-only. */
import { cairn } from './cairn.js';
import { describeError } from './errors.js';
import { stopWhenNpmParentIsGone } from './orphan-stop.js';

// A reader that stopped reading (`cairn show x | head`) is not a failure: stop quietly, as cat does.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });

// @temporalio/client's retry interceptor may retry a call on a connection the command has already
// closed, and grpc-js then throws from a timer. The command is past needing it: not a crash.
// Anything else a library throws outside the command is still one line, never a stack trace.
process.on('uncaughtException', (error) => {
  if (error instanceof Error && error.message === 'Channel has been shut down') return;
  if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
  process.stderr.write(`cairn: ${describeError(error)}\n`);
  process.exit(1);
});

stopWhenNpmParentIsGone();

const code = await cairn(process.argv.slice(2));
process.exitCode = code;
// A connection left open by a library must not keep a finished command alive.
setTimeout(() => process.exit(code), 2_000).unref();
