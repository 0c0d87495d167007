import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../shared/agent/define-agent.js';
import { bundleBuildId, deploymentNameOf, versioningOptions } from './worker-versioning.js';

const bundle = { code: 'the workflow bundle' };
const hashed = `cairn@${createHash('sha256').update(bundle.code).digest('hex').slice(0, 12)}`;
const plain = defineAgent({ name: 'plain', instructions: 'Help.', tools: [] });
const pinned = defineAgent({ name: 'pinned', instructions: 'Help.', tools: [], versioning: 'pinned' });

describe('versioningOptions: the Worker options of createCairnWorker({ versioning })', () => {
  it('are none without versioning, so the worker stays unversioned', async () => {
    expect(await versioningOptions(undefined, bundle, {}, [plain])).toEqual({});
  });

  it("name the deployment and the build (the bundle's hash unless given), pinned unless told otherwise", async () => {
    expect(await bundleBuildId(bundle)).toBe(hashed);
    expect(await versioningOptions({ deploymentName: 'support' }, bundle, {}, [plain])).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'support', buildId: hashed },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
    const given = { deploymentName: 'support', buildId: 'git-3f9c2a1', defaultBehavior: 'auto-upgrade' } as const;
    expect(await versioningOptions(given, bundle, {}, [pinned])).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'support', buildId: 'git-3f9c2a1' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'AUTO_UPGRADE',
      },
    });
  });

  it('refuse versioning set twice, a name or build id Temporal refuses', async () => {
    const version = { deploymentName: 'd', buildId: 'b' };
    await expect(
      versioningOptions(
        { deploymentName: 'support' },
        bundle,
        { workerDeploymentOptions: { version, useWorkerVersioning: false } },
        [],
      ),
    ).rejects.toThrow(/leave `worker.workerDeploymentOptions`, `worker.buildId` and `worker.useVersioning` unset/);
    await expect(versioningOptions({ deploymentName: 'support' }, bundle, { buildId: 'x' }, [])).rejects.toThrow(
      /`versioning` sets the worker's deployment and build id/,
    );
    await expect(versioningOptions({ deploymentName: 'v1.2' }, bundle, {}, [])).rejects.toThrow(
      'createCairnWorker: deployment name "v1.2" cannot contain "." or ":" (Temporal\'s rule).',
    );
    await expect(versioningOptions({ deploymentName: 'team:support' }, bundle, {}, [])).rejects.toThrow(
      /deployment name "team:support" cannot contain/,
    );
    await expect(versioningOptions({ deploymentName: ' ' }, bundle, {}, [])).rejects.toThrow(/cannot be empty/);
    await expect(versioningOptions({ deploymentName: 'd', buildId: '' }, bundle, {}, [])).rejects.toThrow(
      /`versioning.buildId` is empty/,
    );
  });

  it("refuse an agent's choice on a worker Temporal would not version (every workflow task would fail)", async () => {
    const version = { deploymentName: 'd', buildId: 'b' };
    await expect(
      versioningOptions(undefined, bundle, { workerDeploymentOptions: { version, useWorkerVersioning: false } }, [
        pinned,
      ]),
    ).rejects.toThrow(/agent "pinned" chooses its versioning, which needs Worker Deployment Versioning/);
    await expect(versioningOptions(undefined, bundle, { useVersioning: true, buildId: 'b' }, [pinned])).rejects.toThrow(
      /not build-id versioning/,
    );
    // On a plain unversioned worker the choice is simply not reported (workflows/run-versioning.ts).
    expect(await versioningOptions(undefined, bundle, {}, [pinned])).toEqual({});
  });

  it('make a deployment name of a package name', () => {
    expect(deploymentNameOf('@acme/support.agents')).toBe('@acme/support-agents');
    expect(deploymentNameOf('  ')).toBe('cairn');
  });
});
