import { describe, expect, it } from 'vitest';
import { versioningFlags, workerVersioning } from './versioning-flags.js';

const project = { deploymentName: 'my-agents' };

describe('versioning flags of cairn worker', () => {
  it('leave the worker unversioned when neither flags, variables nor the config ask', () => {
    expect(workerVersioning(versioningFlags({}, {}), project)).toBeUndefined();
    expect(
      workerVersioning(versioningFlags({}, { CAIRN_DEPLOYMENT_NAME: '', CAIRN_BUILD_ID: ' ' }), project),
    ).toBeUndefined();
  });

  it('turn it on with any flag or variable, the rest from the config, then the defaults (pinned, the package name)', () => {
    expect(workerVersioning(versioningFlags({ 'build-id': 'abc' }, {}), project)).toEqual({
      deploymentName: 'my-agents',
      buildId: 'abc',
      defaultBehavior: 'pinned',
    });
    expect(workerVersioning(versioningFlags({}, { CAIRN_VERSIONING: 'auto-upgrade' }), project)).toEqual({
      deploymentName: 'my-agents',
      defaultBehavior: 'auto-upgrade',
    });
    const configured = { ...project, versioning: { deploymentName: 'support', buildId: 'from-config' } };
    expect(workerVersioning(versioningFlags({}, {}), configured)).toEqual({
      deploymentName: 'support',
      buildId: 'from-config',
      defaultBehavior: 'pinned',
    });
    expect(workerVersioning(versioningFlags({}, {}), { ...project, versioning: {} })).toEqual({
      deploymentName: 'my-agents',
      defaultBehavior: 'pinned',
    });
  });

  it('take the flag over its variable, and the variable over the config', () => {
    const configured = { ...project, versioning: { deploymentName: 'config', buildId: 'config' } };
    const env = { CAIRN_DEPLOYMENT_NAME: 'env', CAIRN_BUILD_ID: 'env', CAIRN_VERSIONING: 'auto-upgrade' };
    expect(workerVersioning(versioningFlags({ 'deployment-name': 'flag' }, env), configured)).toEqual({
      deploymentName: 'flag',
      buildId: 'env',
      defaultBehavior: 'auto-upgrade',
    });
    expect(workerVersioning(versioningFlags({ versioning: 'pinned' }, env), configured)).toMatchObject({
      deploymentName: 'env',
      defaultBehavior: 'pinned',
    });
  });

  it('--versioning off runs unversioned whatever the config or the variables say', () => {
    const configured = { ...project, versioning: { deploymentName: 'support' } };
    expect(
      workerVersioning(versioningFlags({ versioning: 'off' }, { CAIRN_BUILD_ID: 'x' }), configured),
    ).toBeUndefined();
    expect(workerVersioning(versioningFlags({}, { CAIRN_VERSIONING: 'off' }), configured)).toBeUndefined();
  });

  it('refuse, naming the flag or variable, what Temporal or Cairn cannot use', () => {
    expect(() => versioningFlags({ 'deployment-name': 'a.b' }, {})).toThrow(
      '--deployment-name must be a name without "." or ":" (Temporal\'s rule), not "a.b"',
    );
    expect(() => versioningFlags({}, { CAIRN_DEPLOYMENT_NAME: 'team:support' })).toThrow(
      'CAIRN_DEPLOYMENT_NAME must be a name without "." or ":" (Temporal\'s rule), not "team:support"',
    );
    expect(() => versioningFlags({}, { CAIRN_VERSIONING: 'PINNED' })).toThrow(
      'CAIRN_VERSIONING must be "pinned", "auto-upgrade", "off", not "PINNED"',
    );
    expect(() => versioningFlags({ 'build-id': ' ' }, {})).toThrow('--build-id is empty');
    expect(() => versioningFlags({ 'deployment-name': '' }, {})).toThrow(/--deployment-name must be a name/);
  });
});
