import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_CODES, isToolErrorCode } from './failure-taxonomy.js';

describe('isToolErrorCode', () => {
  it("accepts each of Cairn's codes and nothing that only turns into one as a string", () => {
    for (const code of TOOL_ERROR_CODES) expect(isToolErrorCode(code)).toBe(true);
    // Data read back from JSON: an array of one code is not a code, nor is an inherited key.
    for (const other of [['timeout'], { toString: () => 'timeout' }, 'toString', 'TIMEOUT', 7, null, undefined])
      expect(isToolErrorCode(other)).toBe(false);
  });
});
