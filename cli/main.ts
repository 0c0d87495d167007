/** The `cairn` executable's entry (`npm run cairn -- <args>`, bin/cairn.js). Node-only. */
import { cairn } from './cairn.js';

const code = await cairn(process.argv.slice(2));
process.exitCode = code;
// A connection left open by a library must not keep a finished command alive.
setTimeout(() => process.exit(code), 2_000).unref();
