/** A held workspace write's change reaches the AG-UI interrupt a client renders (docs/workspaces.md, "Reviews"). */
import { describe, expect, it } from 'vitest';
import { toAgUiInterrupts } from './agui-events.js';
import { reviewInterruptId } from './interrupts.js';

describe('an AG-UI review interrupt', () => {
  const review = {
    toolCallId: '2.1',
    name: 'write_file',
    args: { path: 'sum.js', content: 'x' },
    argsHash: 'h1',
  };
  const interrupt = (change?: string) =>
    toAgUiInterrupts(
      [{ kind: 'review', id: reviewInterruptId(review), review: { ...review, ...(change && { change }) } }],
      () => undefined,
    )[0]!;

  it('carries the diff of a workspace write in its metadata', () => {
    const diff = '--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-y\n+x\n';
    expect(interrupt(diff).metadata).toMatchObject({ tool: 'write_file', argsHash: 'h1', change: diff });
  });

  it('has no change for a call that is not a workspace write', () => {
    expect(interrupt().metadata).not.toHaveProperty('change');
  });
});
