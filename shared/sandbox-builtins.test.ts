import { describe, expect, it } from 'vitest';
import * as builtins from './sandbox-builtins.js';

describe('sandbox-builtins', () => {
  it('exports each built-in under its own name, as the very object the global holds', () => {
    const exported = Object.entries({ ...builtins });
    expect(exported.length).toBeGreaterThan(0);
    for (const [name, value] of exported) expect(value, name).toBe(globalThis[name as never]);
  });

  it('never offers what the workflow sandbox replaces per run or forbids', () => {
    for (const name of ['Date', 'setTimeout', 'clearTimeout', 'WeakRef', 'FinalizationRegistry'])
      expect(Object.keys(builtins)).not.toContain(name);
  });
});
