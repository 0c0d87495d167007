/**
 * A person's word has one home (shared/human-input/): adding a kind of review decision there fails
 * `tsc` in every place that must say what to do with it, and nowhere else needs touching to take it
 * in (every surface parses through the one parser). Checked by compiling the project in memory with
 * the table changed, as a scratch copy would; and client/, cli/ and the servers read the run's
 * contract and the human-input modules, never planner/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const TABLE = join(ROOT, 'shared', 'human-input', 'review-decision.ts');
const BUDGET = join(ROOT, 'shared', 'human-input', 'budget-decision.ts');

/** The project's files with errors when `file` reads `text` instead; tests left out (they are not places that handle input). */
function failingWith(file: string, text: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.json did not parse');
  const options = { ...parsed.options, noEmit: true, incremental: false, composite: false };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest);
  const files = parsed.fileNames.filter((f) => !/\.test\.ts$/.test(f) && !f.includes(`${join(ROOT, 'test')}`));
  const program = ts.createProgram({ rootNames: files, options, host });
  const failing = new Set<string>();
  for (const d of ts.getPreEmitDiagnostics(program))
    if (d.file && d.category === ts.DiagnosticCategory.Error) failing.add(relative(ROOT, d.file.fileName));
  return [...failing].sort();
}

describe('one home for what a person says to a run', () => {
  it('a new review decision type fails tsc in every place that must handle it, and only there', () => {
    const original = readFileSync(TABLE, 'utf8');
    const marker = "'reject'] as const;";
    expect(original).toContain(marker);
    const added = original.replace(marker, "'reject', 'escalate'] as const;");
    expect(failingWith(TABLE, added)).toEqual([
      // How the CLI says what it did.
      'cli/commands/review.ts',
      // What the run's gate makes of it, and what the planner does with it.
      'planner/plan-human.ts',
      // How the inbox names a decision (and offers it).
      'servers/http/inbox-page.ts',
      // What it carries: its row in the one table.
      'shared/human-input/review-decision.ts',
    ]);
  }, 300_000);

  it('a new field of a budget extension fails tsc where the planner applies an extension, once schema and type agree', () => {
    const original = readFileSync(BUDGET, 'utf8');
    const inSchema = '    })\n    .refine((d) => d.tokens !== undefined';
    const inType = 'readonly costUsd?: number }';
    expect(original).toContain(inSchema);
    expect(original).toContain(inType);
    // The schema alone, or the type alone: the file's own check fails (they must say the same).
    const schemaOnly = original.replace(inSchema, `      steps: z.number().int().positive().optional(),\n${inSchema}`);
    expect(failingWith(BUDGET, schemaOnly)).toEqual(['shared/human-input/budget-decision.ts']);
    // Both: the planner, which must add the new amount to the run's budget.
    const both = schemaOnly.replace(inType, 'readonly costUsd?: number; readonly steps?: number }');
    expect(failingWith(BUDGET, both)).toEqual(['planner/plan-budget.ts']);
  }, 300_000);

  it('client/, cli/ and the servers read the run contract and the human-input modules, never planner/', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          if (/from '(\.\.\/)+planner\//.test(text)) offenders.push(relative(ROOT, path));
        }
      }
    };
    for (const dir of ['client', 'servers', 'cli']) walk(join(ROOT, dir));
    expect(offenders).toEqual([]);
  });
});
