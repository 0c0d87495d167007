import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closingLine } from './demo.js';

describe("the demo's closing line", () => {
  it('names a command that serves this run again where it ran, not a new demo', () => {
    const line = closingLine({ persistent: '.temporal/cairn.db', port: 7233, uiPort: 8233 });
    // From a checkout `cairn` is not on PATH: npm runs it.
    expect(line).toContain(
      `serve them: npm run cairn -- dev --port 7233 --ui-port 8233 --db-filename ${resolve('.temporal/cairn.db')}, then open the link.`,
    );
    expect(line).not.toContain('demo --keep');
    expect(closingLine({ persistent: '.temporal/cairn.db', port: 7233, uiPort: 8233 }, 'npx cairn')).toContain(
      'serve them: npx cairn dev --port 7233',
    );
    expect(closingLine({})).toContain('`npm run cairn -- demo --keep` runs the demo');
  });
});
