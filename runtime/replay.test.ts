import { describe, expect, it } from 'vitest';
import { replayHistories } from './replay.js';

describe('replayHistories', () => {
  it('bundles nothing when there is nothing to replay (a deploy gate with no run to move)', async () => {
    // A workflows file that does not exist: bundling it would throw.
    const none = async function* () {};
    for (const histories of [[], none()]) {
      const outcomes: unknown[] = [];
      for await (const outcome of replayHistories(histories, { workflowsPath: '/nonexistent/cairn/workflows.ts' }))
        outcomes.push(outcome);
      expect(outcomes).toEqual([]);
    }
  });
});
