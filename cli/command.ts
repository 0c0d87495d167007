/**
 * What every CLI command is, and how its command line is parsed (`node:util` parseArgs, strict).
 * `--json` and `--help` are accepted by every command. Node-only.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

export interface Command {
  readonly name: string;
  /** One line for `cairn --help`. */
  readonly summary: string;
  /** The command's `--help` text. */
  readonly help: string;
  /** The command parses its whole command line itself, `--help` and `--json` included. */
  readonly delegates?: boolean;
  /** Runs the command; returns the exit code. Throws CliError / UsageError for one-line failures. */
  run(argv: readonly string[], io: Io): Promise<number>;
}

export interface CommandLineSpec<O extends ParseArgsOptionsConfig> {
  readonly options: O;
  /** Names of required positionals, then optional ones, for error messages. */
  readonly required: readonly string[];
  readonly optional?: readonly string[];
}

const COMMON = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** Parses `argv`; unknown flags and a wrong number of arguments throw UsageError. */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(
  command: string,
  argv: readonly string[],
  spec: CommandLineSpec<O>,
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...spec.options, ...COMMON },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's advice about `--` is longer than the problem; the help shows the usage.
    throw new UsageError(`${(error as Error).message.split('. To specify')[0]} (see cairn ${command} --help)`);
  }
  const { positionals } = parsed;
  const optional = spec.optional ?? [];
  if (positionals.length < spec.required.length)
    throw new UsageError(
      `missing ${spec.required
        .slice(positionals.length)
        .map((name) => `<${name}>`)
        .join(' ')} (see cairn ${command} --help)`,
    );
  if (positionals.length > spec.required.length + optional.length)
    throw new UsageError(
      `unexpected argument "${positionals[spec.required.length + optional.length]}" (see cairn ${command} --help)`,
    );
  return { values: parsed.values, positionals };
}

/** True when `argv` asks for help or JSON before any `--`. */
export function hasFlag(argv: readonly string[], ...flags: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => flags.includes(arg));
}

/** A TCP port from a flag's text. */
export function parsePort(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new UsageError(`--${flag} must be a port number (1-65535), not "${text}"`);
  return port;
}
