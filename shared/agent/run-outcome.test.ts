import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAILING_END_CODES, RUN_END_CODES, isRunEndCode } from './run-outcome.js';

/** The rows of docs/failure-taxonomy.md's "How a run ends" table: code, and what the run does. */
function documentedEnds(): [string, string][] {
  const doc = readFileSync(new URL('../../docs/failure-taxonomy.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## How a run ends'));
  return [...section.matchAll(/^\| \*\*`([a-z_]+)`\*\* \| ([^|]+) \|/gm)].map(([, code, run]) => [code!, run!]);
}

describe('run end codes', () => {
  it('are the codes docs/failure-taxonomy.md lists, in its order, and fail the run exactly where it says so', () => {
    const rows = documentedEnds();
    expect(rows.map(([code]) => code)).toStrictEqual([...RUN_END_CODES]);
    expect(rows.filter(([, run]) => run.includes('fails')).map(([code]) => code)).toStrictEqual([...FAILING_END_CODES]);
  });

  it('recognise a code read back from JSON, and nothing else', () => {
    for (const code of RUN_END_CODES) expect(isRunEndCode(code), code).toBe(true);
    for (const other of ['answered', 'timeout', '', undefined, null, 0, ['cancelled'], { code: 'cancelled' }])
      expect(isRunEndCode(other), String(other)).toBe(false);
  });
});
