/**
 * A bench's command-line flags: `--help` (`-h`) prints its usage and exits 0; an unknown or
 * malformed flag is one line naming the script, exit 2, never a stack trace.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export function benchFlags<const T extends ParseArgsOptionsConfig>(script: string, usage: string, options: T) {
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } as const });
  } catch (error) {
    console.error(`${script}: ${(error as Error).message} (--help lists the options)`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed.values as ReturnType<typeof parseArgs<{ options: T }>>['values'];
}
