/**
 * docker-compose.yml, Dockerfile and docs/docker.md agree, without a Docker engine: the documented
 * services exist, ports are published, the worker reaches the temporal service, depends_on forms a
 * valid chain, the search attributes registered are the ones the workflow sets, and the image runs
 * `cairn worker` on Node 24.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MODEL_SPEC_FORMS } from '../activities/model/index.js';
import { DEFAULT_TASK_QUEUE } from '../runtime/temporal-target.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { CAIRN_SEARCH_ATTRIBUTES } from '../workflows/contract/search-attributes.js';
import { MAX_SIGNALS_PER_RUN } from '../runtime/embedded-server.js';
import { VERSIONING_ENV } from '../cli/versioning-flags.js';

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  ports?: (string | { target: number; published?: string | number })[];
  environment?: string[] | Record<string, string | number | null>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[] };
  command?: string | string[];
  entrypoint?: string | string[];
  restart?: string;
  volumes?: string[];
}

const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), 'utf8');
const composeText = read('docker-compose.yml');
const compose = parse(composeText) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
const dockerfile = read('Dockerfile');
const docs = read('docs/docker.md');

/** `environment` as a map; a bare `KEY` (passed through from the host) maps to null. */
function environment(service: Service): Record<string, string | null> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) =>
        entry.includes('=') ? [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] : [entry, null],
      ),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null ? null : String(value)]));
}

/** depends_on as { service: condition }. */
function dependencies(service: Service): Record<string, string> {
  const deps = service.depends_on ?? [];
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((name) => [name, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([name, spec]) => [name, spec.condition ?? 'service_started']));
}

/** Published ports as "host:container". */
function ports(service: Service): string[] {
  return (service.ports ?? []).map((port) => (typeof port === 'string' ? port : `${port.published}:${port.target}`));
}

/** Compose's `${VAR:-default}` with its default, as `docker compose up` with no .env sees it. */
const withDefaults = (text: string) => text.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');

/** The service names in the docs' "Services" table. */
function documentedServices(): string[] {
  const section = docs.split(/^## /m).find((part) => part.startsWith('Services'));
  if (!section) throw new Error('docs/docker.md has no "## Services" section');
  return [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((match) => match[1]!);
}

describe('docker-compose.yml', () => {
  it('has every service docs/docker.md names, and documents every service it has', () => {
    const documented = documentedServices();
    expect(documented).toEqual(
      expect.arrayContaining(['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-ui', 'cairn-worker']),
    );
    expect(Object.keys(services).sort()).toEqual([...documented].sort());
  });

  it('runs Temporal on PostgreSQL 16 with the postgres12 driver', () => {
    expect(services.postgresql!.image).toBe('postgres:16');
    expect(withDefaults(services.temporal!.image!)).toMatch(/^temporalio\/auto-setup:\d+\.\d+\.\d+$/);
    const env = environment(services.temporal!);
    expect(env).toMatchObject({ DB: 'postgres12', DB_PORT: '5432', POSTGRES_SEEDS: 'postgresql' });
    expect(env.POSTGRES_USER).toBe(environment(services.postgresql!).POSTGRES_USER);
    expect(env.POSTGRES_PWD).toBe(environment(services.postgresql!).POSTGRES_PASSWORD);
    expect(withDefaults(services['temporal-ui']!.image!)).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(withDefaults(services['temporal-admin-tools']!.image!)).toMatch(/^temporalio\/admin-tools:\d+\.\d+\.\d+/);
  });

  it('publishes the frontend on 7233 and the UI on 8080, nothing else', () => {
    expect(ports(services.temporal!)).toEqual(['7233:7233']);
    expect(ports(services['temporal-ui']!)).toEqual(['8080:8080']);
    for (const name of ['postgresql', 'temporal-admin-tools', 'cairn-worker'])
      expect(ports(services[name]!)).toEqual([]);
    expect(environment(services['temporal-ui']!).TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it("gives the server PostgreSQL's port under both names the image reads (DB_PORT for setup, POSTGRES_PORT for its config, visibility included)", () => {
    const env = environment(services.temporal!);
    expect(env.DB_PORT).toBe('5432');
    expect(env.POSTGRES_PORT).toBe(env.DB_PORT);
  });

  it("caps Signals per run as Cairn's dev servers do (the flood guard), from a mounted dynamic config file", () => {
    const temporal = services.temporal!;
    const path = environment(temporal).DYNAMIC_CONFIG_FILE_PATH!;
    const mount = (temporal.volumes ?? []).find((volume) => volume.split(':')[1] === `/etc/temporal/${path}`);
    expect(mount, `a volume mounted at /etc/temporal/${path}`).toBeDefined();
    const config = parse(read(mount!.split(':')[0]!)) as Record<string, { value: unknown }[]>;
    expect(config['history.maximumSignalsPerExecution']?.[0]?.value).toBe(MAX_SIGNALS_PER_RUN);
  });

  it("points the worker's run links at the UI the host sees (TEMPORAL_UI_URL), not at the gRPC port + 1000", () => {
    const published = ports(services['temporal-ui']!)[0]!.split(':')[0];
    expect(withDefaults(environment(services['cairn-worker']!).TEMPORAL_UI_URL!)).toBe(`http://localhost:${published}`);
  });

  it('points the worker (and the admin tools) at the temporal service', () => {
    for (const name of ['cairn-worker', 'temporal-admin-tools']) {
      const [host, port] = environment(services[name]!).TEMPORAL_ADDRESS!.split(':');
      expect(Object.keys(services)).toContain(host);
      expect(host).toBe('temporal');
      expect(ports(services.temporal!).map((p) => p.split(':').at(-1))).toContain(port);
    }
    expect(withDefaults(environment(services['cairn-worker']!).TEMPORAL_NAMESPACE!)).toBe('default');
  });

  it('passes every model setting through to the worker', () => {
    const modelVariables = new Set(MODEL_SPEC_FORMS.join(' ').match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g));
    expect(modelVariables.size).toBeGreaterThanOrEqual(5);
    const env = environment(services['cairn-worker']!);
    for (const variable of modelVariables) expect(Object.keys(env), variable).toContain(variable);
    // Keys are never baked into the file: passed through from the host, or empty.
    expect(env.OPENAI_API_KEY).toBeNull();
    expect(env.CAIRN_MODEL_API_KEY).toBeNull();
    expect(env.ANTHROPIC_API_KEY).toBeNull();
  });

  it('runs the worker unversioned unless the deployment name, build id or behavior variables are set', () => {
    const env = environment(services['cairn-worker']!);
    for (const variable of Object.values(VERSIONING_ENV)) {
      expect(Object.keys(env), variable).toContain(variable);
      // Empty when not set: `cairn worker` reads an empty variable as unset (cli/versioning-flags.ts).
      expect(withDefaults(env[variable] ?? ''), variable).toBe('');
      expect(env[variable], variable).toBe(`\${${variable}:-}`);
      expect(docs, variable).toContain(`\`${variable}\``);
    }
  });

  it('has valid depends_on chains: known services, valid conditions, no cycles, worker last', () => {
    const conditions = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(dependencies(service))) {
        expect(Object.keys(services), `${name} depends on ${dependency}`).toContain(dependency);
        expect(conditions, `${name} → ${dependency}: ${condition}`).toContain(condition);
        if (condition === 'service_healthy')
          expect(services[dependency]!.healthcheck?.test, `${dependency} needs a healthcheck`).toBeDefined();
        if (condition === 'service_completed_successfully')
          expect(services[dependency]!.restart ?? 'no').not.toMatch(/^(always|unless-stopped)$/);
      }
    }
    // Every service's dependencies, transitively; a cycle throws.
    const closure = (name: string, path: string[] = []): Set<string> => {
      if (path.includes(name)) throw new Error(`depends_on cycle: ${[...path, name].join(' → ')}`);
      const out = new Set<string>();
      for (const dependency of Object.keys(dependencies(services[name]!))) {
        out.add(dependency);
        for (const further of closure(dependency, [...path, name])) out.add(further);
      }
      return out;
    };
    for (const name of Object.keys(services)) closure(name);
    expect(dependencies(services.temporal!)).toEqual({ postgresql: 'service_healthy' });
    expect(dependencies(services['cairn-worker']!)).toEqual({
      'temporal-admin-tools': 'service_completed_successfully',
    });
    expect([...closure('cairn-worker')].sort()).toEqual(['postgresql', 'temporal', 'temporal-admin-tools']);
    expect(closure('temporal-ui').has('temporal')).toBe(true);
  });

  it('registers exactly the search attributes the workflow upserts, as Keyword', () => {
    const script = [services['temporal-admin-tools']!.command ?? []].flat().join('\n');
    expect(script).toMatch(/temporal operator search-attribute create .*--type Keyword/);
    for (const key of CAIRN_SEARCH_ATTRIBUTES) expect(script).toContain(key.name);
    expect(CAIRN_SEARCH_ATTRIBUTES.every((key) => key.type === 'KEYWORD')).toBe(true);
  });

  it('escapes shell variables and gives every compose variable a default', () => {
    // A bare `$NAME` would be interpolated by Compose (to empty); shell variables are written `$$NAME`.
    expect(composeText.replace(/\$\$/g, '')).not.toMatch(/\$(?!\{)/);
    for (const [, name, rest] of composeText.replace(/\$\$/g, '').matchAll(/\$\{([A-Z0-9_]+)([^}]*)\}/g))
      expect(rest, name).toMatch(/^:-/);
  });

  it('builds the worker from the Dockerfile', () => {
    const build = services['cairn-worker']!.build;
    expect(typeof build === 'string' ? build : build?.context).toBe('.');
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfile
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('is based on Node 24', () => {
    const from = instructions.filter((line) => /^FROM /i.test(line));
    expect(from).toHaveLength(1);
    expect(from[0]).toMatch(/^FROM node:24(-slim)?(@sha256:[0-9a-f]+)?$/);
    expect(read('package.json')).toContain('"node": ">=24 <25"');
  });

  it('installs the locked dependencies with npm ci before copying the sources', () => {
    const copyLock = instructions.findIndex((line) => /^COPY package\.json package-lock\.json/.test(line));
    const install = instructions.findIndex((line) => /^RUN npm ci\b/.test(line));
    const copyAll = instructions.findIndex((line) => /^COPY \. \./.test(line));
    expect(copyLock).toBeGreaterThanOrEqual(0);
    expect(install).toBeGreaterThan(copyLock);
    expect(copyAll).toBeGreaterThan(install);
    // The build needs the sources; bin/cairn.js runs what it compiles.
    expect(instructions.indexOf('RUN npm run build')).toBeGreaterThan(copyAll);
  });

  it('runs `cairn worker` (on the default task queue) as a non-root user', () => {
    expect(instructions).toContain('USER node');
    expect(instructions.at(-1)).toBe('CMD ["node", "bin/cairn.js", "worker"]');
    expect(DEFAULT_TASK_QUEUE).toBe('cairn');
  });

  it('keeps local state and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', '.git', '.env', '.temporal', '.cache']) expect(ignored).toContain(entry);
    // What the worker needs is not ignored.
    for (const needed of [
      'bin',
      'cli',
      'client',
      'servers',
      'entry',
      'examples',
      'testing',
      'workflows',
      'activities',
      'runtime',
      'shared',
      'planner',
      'cairn.config.ts',
      'tsconfig.json',
      'tsconfig.build.json',
      'package.json',
      'package-lock.json',
    ])
      expect(ignored).not.toContain(needed);
  });
});

describe('docs/docker.md', () => {
  it('says how to start the stack and run an agent against it', () => {
    expect(docs).toContain('docker compose up');
    expect(docs).toMatch(/cairn run orders ".+" --model/);
    expect(docs).toContain('http://localhost:8080');
    expect(docs).toContain('TEMPORAL_UI_URL=http://localhost:8080');
  });
});
