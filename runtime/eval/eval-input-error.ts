/**
 * Input an evaluation cannot start with: an eval module that does not load, or cases that cannot
 * be evaluated. Thrown before any lane starts, as one line naming the file (and line). Node-only.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvalCase } from './eval-cases.js';

const MARK = Symbol.for('cairn.EvalInputError');

export class EvalInputError extends Error {
  override readonly name = 'EvalInputError';
  readonly [MARK] = true;

  static isInstance(error: unknown): error is EvalInputError {
    return typeof error === 'object' && error !== null && MARK in error;
  }
}

/** `file:line: message` for an eval module's import that failed, wherever the loader put the place. */
export function moduleLoadError(error: unknown, module: string): EvalInputError {
  const { message = String(error), stack = '' } = (typeof error === 'object' && error !== null ? error : {}) as {
    message?: string;
    stack?: string;
  };
  // esbuild (tsx): "Transform failed with 1 error:\n/path/file.ts:3:10: ERROR: Expected …".
  const transform = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (transform) return new EvalInputError(`${shown(transform[1]!)}:${transform[2]}: ${transform[4]}`);
  // Node decorates a syntax error's stack with "<file>:<line>" before the message (type stripping too).
  const decorated = /^((?:file:\/\/)?\/.*|[A-Za-z]:\\.*):(\d+)$/.exec(stack.split('\n', 1)[0] ?? '');
  const first = message.split('\n', 1)[0]!;
  if (decorated) return new EvalInputError(`${shown(decorated[1]!)}:${decorated[2]}: ${first}`);
  return new EvalInputError(`${shown(module)}: cannot load it: ${first}`);
}

/** The cases that cannot be evaluated, one line naming their files; `--allow-errors` evaluates the others. */
export function caseErrors(cases: readonly EvalCase[]): EvalInputError | undefined {
  const problems = cases.flatMap((kase) => {
    if (!kase.error) return [];
    const source = shown(kase.source);
    const message = kase.error.message.replace(/\s+/g, ' ').trim();
    return [message.includes(source) ? message : `${source}: ${message}`];
  });
  if (problems.length === 0) return undefined;
  const hint = '(--allow-errors evaluates the other cases)';
  return new EvalInputError(
    problems.length === 1
      ? `${problems[0]} ${hint}`
      : `${problems.length} cases cannot be evaluated: ${problems.join('; ')} ${hint}`,
  );
}

function shown(file: string): string {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  if (!path.startsWith('/') && !/^[A-Za-z]:\\/.test(path)) return path;
  const near = relative(process.cwd(), path);
  return near && !near.startsWith('..') ? near : path;
}
