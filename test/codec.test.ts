/**
 * Encrypted payloads: the AES-256-GCM codec (round trip, rotation, unknown and wrong keys), the
 * codec server (decode, CORS preflight, auth), and on the real dev server a run whose history
 * holds only ciphertext, which the codec server and `temporal workflow show --codec-endpoint`
 * decode again.
 */
import { execFile, spawn } from 'node:child_process';
import { createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { NativeConnection } from '@temporalio/worker';
import {
  ALLOWED_HEADERS,
  startCodecServer,
  toJson,
  type CodecServer,
  type JsonPayload,
} from '../runtime/codec-server.js';
import {
  AesGcmPayloadCodec,
  CODEC_KEYS_ENV,
  codecFromEnvironment,
  dataConverterFromEnvironment,
  ENCRYPTED_ENCODING,
  generateCodecKey,
  KEY_ID_METADATA,
  parseCodecKeys,
  PayloadDecryptionError,
  type CodecKey,
} from '../runtime/payload-codec.js';
import { CairnClient, connectCairnClient } from '../entry/client.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { resolveTemporalCli } from '../runtime/temporal-cli.js';
import { createCairnWorker } from '../runtime/worker.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { serve } from './support/http.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

const run = promisify(execFile);

function key(id: string): CodecKey {
  return { id, key: new Uint8Array(randomBytes(32)) };
}

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
const jsonPayload = (value: unknown) => defaultPayloadConverter.toPayload(value)!;

describe('the AES-256-GCM payload codec', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('round-trips payloads: ciphertext with the key id on the wire, the same payload back', async () => {
    const codec = new AesGcmPayloadCodec([k1]);
    const originals = [
      jsonPayload({ prompt: 'Refund order A-1001, é ✓ 𝄞' }),
      jsonPayload(null),
      jsonPayload('x'.repeat(70_000)),
      { metadata: { encoding: Buffer.from('binary/null') } },
    ];
    const encoded = await codec.encode(originals);
    expect(encoded).toHaveLength(originals.length);
    for (const payload of encoded) {
      expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.metadata?.[KEY_ID_METADATA])).toBe('k1');
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA]);
      expect(text(payload.data)).not.toContain('A-1001');
    }
    // A fresh IV per payload: the same plaintext never gives the same ciphertext.
    const [again] = await codec.encode([originals[0]!]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encoded[0]!.data!))).toBe(false);

    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual(
      originals.map((p) => defaultPayloadConverter.fromPayload(p)),
    );
    expect(decoded.map((p) => text(p.metadata?.encoding))).toEqual(originals.map((p) => text(p.metadata?.encoding)));
    expect(await codec.encode([])).toEqual([]);
  });

  it('seals the payload as Temporal’s Payload protobuf: iv ‖ ciphertext ‖ tag, the key id as associated data', async () => {
    const original = jsonPayload({ a: [1, 'two'] });
    const [sealed] = await new AesGcmPayloadCodec([k1]).encode([original]);
    const data = Buffer.from(sealed!.data!);
    const decipher = createDecipheriv('aes-256-gcm', k1.key, data.subarray(0, 12));
    decipher.setAAD(Buffer.from('k1'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
    expect(plain.equals(Buffer.from(temporal.api.common.v1.Payload.encode(original).finish()))).toBe(true);
  });

  it('leaves payloads that are not encrypted as they are when decoding', async () => {
    const plain = jsonPayload({ clear: true });
    expect(await new AesGcmPayloadCodec([k1]).decode([plain])).toEqual([plain]);
  });

  it('rotates: the new key encrypts, the old key still decrypts what it wrote', async () => {
    const before = new AesGcmPayloadCodec([k1]);
    const after = new AesGcmPayloadCodec([k2, k1]);
    expect(after.currentKeyId).toBe('k2');
    expect(after.keyIds).toEqual(['k2', 'k1']);
    const old = await before.encode([jsonPayload('written under k1')]);
    expect(defaultPayloadConverter.fromPayload((await after.decode(old))[0]!)).toBe('written under k1');
    const fresh = await after.encode([jsonPayload('written under k2')]);
    expect(text(fresh[0]!.metadata?.[KEY_ID_METADATA])).toBe('k2');
    // A worker still on the old keys cannot read it, and says which key it lacks.
    const failure = await before.decode(fresh).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PayloadDecryptionError);
    expect(failure).toMatchObject({
      keyId: 'k2',
      message: expect.stringMatching(/encrypted with key "k2", which is not configured \(configured: k1\)/),
    });
    // currentKeyId picks another key to encrypt with.
    const pinned = new AesGcmPayloadCodec([k2, k1], { currentKeyId: 'k1' });
    expect(text((await pinned.encode([jsonPayload(1)]))[0]!.metadata?.[KEY_ID_METADATA])).toBe('k1');
  });

  it('fails clearly on a wrong key under the same id, a tampered payload or a payload without a key id', async () => {
    const [sealed] = await new AesGcmPayloadCodec([k1]).encode([jsonPayload('secret')]);
    const impostor = new AesGcmPayloadCodec([{ id: 'k1', key: k2.key }]);
    await expect(impostor.decode([sealed!])).rejects.toThrow(
      /encrypted with key "k1" does not decrypt with the configured key "k1"/,
    );
    const tampered = Buffer.from(sealed!.data!);
    tampered[20] = tampered[20]! ^ 1;
    await expect(new AesGcmPayloadCodec([k1]).decode([{ ...sealed, data: tampered }])).rejects.toThrow(
      PayloadDecryptionError,
    );
    await expect(
      new AesGcmPayloadCodec([k1]).decode([
        { metadata: { encoding: sealed!.metadata!.encoding! }, data: sealed!.data! },
      ]),
    ).rejects.toThrow(/no "encryption-key-id" metadata/);
  });

  it('reads CAIRN_CODEC_KEYS: id:<base64>, the current key first; errors name the entry, never the key', () => {
    const [a, b] = [generateCodecKey('k2'), generateCodecKey('k1')];
    expect(a).toMatch(/^k2:[A-Za-z0-9+/]{43}=$/);
    const codec = codecFromEnvironment({ [CODEC_KEYS_ENV]: `${a}, ${b}` });
    expect(codec?.keyIds).toEqual(['k2', 'k1']);
    expect(dataConverterFromEnvironment({ [CODEC_KEYS_ENV]: a })?.payloadCodecs).toHaveLength(1);
    expect(codecFromEnvironment({})).toBeUndefined();
    expect(dataConverterFromEnvironment({ [CODEC_KEYS_ENV]: ' ' })).toBeUndefined();
    expect(parseCodecKeys(`k:${Buffer.alloc(32, 7).toString('base64url')}`)[0]!.key).toEqual(
      new Uint8Array(32).fill(7),
    );

    const short = Buffer.alloc(16, 1).toString('base64');
    expect(() => parseCodecKeys(`k1:${short}`)).toThrow(/key "k1" is 16 bytes; AES-256 needs exactly 32/);
    expect(() => parseCodecKeys(`k1:${short}`)).not.toThrow(new RegExp(short.replace(/[+/=]/g, '.')));
    expect(() => parseCodecKeys('k1')).toThrow(/entry 1 is not "id:<base64 of 32 bytes>"/);
    expect(() => parseCodecKeys('k1:not*base64')).toThrow(/key "k1" is not base64/);
    expect(() => parseCodecKeys('bad id:AAAA')).toThrow(/entry 1 is not|key id "bad id"/);
    expect(() => codecFromEnvironment({ [CODEC_KEYS_ENV]: `${a},${a}` })).toThrow(/"k2" is configured twice/);
    expect(() => new AesGcmPayloadCodec([])).toThrow(/at least one key/);
    expect(() => new AesGcmPayloadCodec([k1], { currentKeyId: 'k9' })).toThrow(/current codec key "k9"/);
  });

  it('a worker with a codec refuses a client without one (its transcript Queries could not be read)', async () => {
    const failure = createCairnWorker({
      connection: {} as NativeConnection,
      client: new Client(),
      agents: [testAgent],
      workflowBundle: { code: '' },
      worker: { dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([k1])] } },
    });
    await expect(failure).rejects.toThrow(/`worker.dataConverter` has payload codecs but `client` has none/);
  });
});

async function post(
  server: CodecServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });
}

async function decodeThrough(
  server: CodecServer,
  payloads: Payload[],
  headers: Record<string, string> = {},
): Promise<Payload[]> {
  const response = await post(server, '/decode', { payloads: payloads.map(toJson) }, headers);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { payloads: JsonPayload[] };
  return body.payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
  }));
}

describe('the codec server', () => {
  const codec = new AesGcmPayloadCodec([key('k2'), key('k1')]);
  let server: CodecServer;
  let guarded: CodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codecs: [codec], port: 0 });
    guarded = await startCodecServer({
      codecs: [codec],
      port: 0,
      origins: ['http://ui.example:8080'],
      authorization: 'Bearer s3cret',
    });
  });
  afterAll(async () => {
    await server?.close();
    await guarded?.close();
  });

  it('decodes what the codec encoded, and encodes what it decodes, in the codec-server JSON format', async () => {
    const sealed = await codec.encode([jsonPayload({ prompt: 'Where is A-1001?' })]);
    const [decoded] = await decodeThrough(server, sealed);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: 'Where is A-1001?' });

    const encoded = await post(server, '/encode', { payloads: [toJson(jsonPayload('typed in the UI'))] });
    expect(encoded.status).toBe(200);
    const { payloads } = (await encoded.json()) as { payloads: JsonPayload[] };
    expect(Buffer.from(payloads[0]!.metadata!.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(payloads[0]!.metadata![KEY_ID_METADATA]!, 'base64').toString()).toBe('k2');
    const [back] = await decodeThrough(server, [
      {
        metadata: {
          encoding: Buffer.from(payloads[0]!.metadata!.encoding!, 'base64'),
          [KEY_ID_METADATA]: Buffer.from('k2'),
        },
        data: Buffer.from(payloads[0]!.data!, 'base64'),
      },
    ]);
    expect(defaultPayloadConverter.fromPayload(back!)).toBe('typed in the UI');
  });

  it('answers with a 400 naming the key for a payload of an unknown key, and for a malformed body', async () => {
    const foreign = await new AesGcmPayloadCodec([key('k0')]).encode([jsonPayload('x')]);
    const response = await post(server, '/decode', { payloads: foreign.map(toJson) });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/encrypted with key "k0", which is not configured \(configured: k2, k1\)/);
    expect((await post(server, '/decode', { nope: [] })).status).toBe(400);
    expect((await fetch(`${server.url}/decode`, { method: 'POST', body: '{' })).status).toBe(400);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    expect((await post(server, '/elsewhere', { payloads: [] })).status).toBe(404);
  });

  it('answers the Temporal UI’s CORS preflight, and refuses other origins', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:8233',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type, X-Namespace, Authorization');
    expect(ALLOWED_HEADERS).toBe('Content-Type, X-Namespace, Authorization');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');

    const decoded = await post(server, '/decode', { payloads: [] }, { Origin: 'http://localhost:8233' });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect((await post(server, '/decode', { payloads: [] }, { Origin: 'http://evil.example' })).status).toBe(403);
    const other = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example' },
    });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('requires the configured Authorization header (401 otherwise), but not on the preflight', async () => {
    const sealed = await codec.encode([jsonPayload('guarded')]);
    const body = { payloads: sealed.map(toJson) };
    const origin = { Origin: 'http://ui.example:8080' };
    const missing = await post(guarded, '/decode', body, origin);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('access-control-allow-origin')).toBe('http://ui.example:8080'); // the UI can read why
    expect((await post(guarded, '/decode', body, { ...origin, Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(guarded, '/encode', body, { Authorization: 'Bearer s3cret!' })).status).toBe(401);
    const preflight = await fetch(`${guarded.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        ...origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    const [decoded] = await decodeThrough(guarded, sealed, { ...origin, Authorization: 'Bearer s3cret' });
    expect(defaultPayloadConverter.fromPayload(decoded!)).toBe('guarded');
    expect(
      (await post(guarded, '/decode', body, { Origin: 'http://localhost:8233', Authorization: 'Bearer s3cret' }))
        .status,
    ).toBe(403);
  });
});

/** Every Payload in a history event tree, with where it is; search attributes and headers are not codec-encoded. */
function payloadsOf(value: unknown, path = ''): { path: string; payload: Payload }[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return [];
  if (/(searchAttributes|indexedFields|header)$/i.test(path)) return [];
  const record = value as Record<string, unknown>;
  if ('data' in record && (record.data instanceof Uint8Array || 'metadata' in record) && !Array.isArray(value))
    return [{ path, payload: record as Payload }];
  return Object.entries(record).flatMap(([k, v]) => payloadsOf(v, `${path}.${k}`));
}

/** Every byte array in the tree, search attributes and headers included. */
function bytesOf(value: unknown): Uint8Array[] {
  if (value instanceof Uint8Array) return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value as Record<string, unknown>).flatMap(bytesOf);
}

/** `cairn …` from the sources on this Node, with only `env`'s Temporal and Cairn settings. */
function cairnProcess(args: readonly string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_') && !k.startsWith('CAIRN_CODEC')),
  );
  return spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'cli', 'main.ts'), ...args], {
    cwd: PACKAGE_ROOT,
    env: { ...clean, ...env },
  });
}

async function cairnOutcome(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = cairnProcess(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

// These start `cairn` and `temporal` processes (tsx, the CLI's modules): seconds apiece on a loaded 2-core machine.
describe('a run with the codec on, on the real dev server', { timeout: 180_000 }, () => {
  const keys = `${generateCodecKey('k2')},${generateCodecKey('k1')}`;
  const codec = codecFromEnvironment({ [CODEC_KEYS_ENV]: keys })!;
  const marker = `secret-${randomUUID().slice(0, 8)}`;
  const prompt = `Where is order A-1001? (${marker})`;
  const answer = `A-1001 ships tomorrow (${marker}-answer).`;
  let w: TestWorker;
  let raw: Client;
  let server: CodecServer;
  let workflowId: string;
  beforeAll(async () => {
    w = await startTestWorker({ dataConverter: { payloadCodecs: [codec] } });
    raw = new Client({ connection: w.client.connection }); // the same server, no codec
    server = await startCodecServer({ codecs: [codec], port: 0, authorization: 'Bearer codec-test' });
    const { model } = w.script([scriptStep.call('lookup_order', { orderId: 'A-1001' }), scriptStep.text(answer)]);
    // Started as Cairn's client starts runs: its static summary ("test: <prompt>") and search attributes too.
    const handle = await new CairnClient({ client: w.client, taskQueue: w.taskQueue }).start({
      agent: 'test',
      prompt,
      model,
    });
    workflowId = handle.workflowId;
    // Through the codec, everything reads as usual.
    expect(await handle.result()).toMatchObject({ answer });
  });
  afterAll(async () => {
    await server?.close();
    await w?.stop();
  });

  it('keeps only ciphertext in the server’s history, which the codec server decodes to the transcript', async () => {
    const history = await raw.workflow.getHandle(workflowId).fetchHistory();
    const found = payloadsOf(history.events);
    expect(found.length).toBeGreaterThan(5);
    // Only the SDK's patch markers (`patched()` ids, written by the SDK core) stay in clear.
    const clear = found.filter(({ payload }) => text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING);
    expect(
      clear
        .filter(({ path }) => !/\.markerRecordedEventAttributes\.details\.patch-data\./.test(path))
        .map(({ path }) => path),
    ).toEqual([]);
    for (const { payload } of clear)
      expect(Object.keys(JSON.parse(text(payload.data))).sort()).toEqual(['deprecated', 'id']);
    expect(
      new Set(
        found
          .filter(({ payload }) => !clear.some((c) => c.payload === payload))
          .map(({ payload }) => text(payload.metadata?.[KEY_ID_METADATA])),
      ),
    ).toEqual(new Set(['k2']));
    for (const bytes of bytesOf(history.events)) expect(Buffer.from(bytes).includes(marker)).toBe(false);
    // The run's static summary and activity summaries are payloads too: encrypted; search attributes are not.
    expect(found.filter(({ path }) => /userMetadata\.summary$/.test(path)).length).toBeGreaterThan(2);
    expect(
      history.events!.some(
        (e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.CairnPhase,
      ),
    ).toBe(true);
    // A client without the codec cannot read the result.
    await expect(raw.workflow.getHandle(workflowId).result()).rejects.toThrow();

    // The codec server decodes the same payloads to the run's input, transcript and answer.
    const decoded = await decodeThrough(
      server,
      found.map(({ payload }) => payload),
      { Authorization: 'Bearer codec-test' },
    );
    const plain = decoded.map((p) => text(p.data)).join('\n');
    expect(plain).toContain(prompt);
    expect(plain).toContain(answer);
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const [input] = await decodeThrough(server, started, { Authorization: 'Bearer codec-test' });
    expect(defaultPayloadConverter.fromPayload(input!)).toMatchObject({ agent: 'test', prompt });
  });

  it('`temporal workflow show` shows ciphertext, and with `cairn codec-server` as --codec-endpoint the prompt', async () => {
    const child = cairnProcess(['codec-server', '--port', '0', '--json'], {
      [CODEC_KEYS_ENV]: keys,
      CAIRN_CODEC_AUTH: 'Bearer cli-test',
    });
    try {
      let stdout = '';
      const ready = await new Promise<{ url: string; keyIds: string[]; auth: boolean }>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
        });
        child.on('exit', (code) => reject(new Error(`cairn codec-server exited (${code})`)));
      });
      expect(ready).toMatchObject({
        keyIds: ['k2', 'k1'],
        auth: true,
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      });

      const cli = await resolveTemporalCli({ allowDownload: false });
      if (cli.type !== 'existing-path') throw new Error('no Temporal CLI');
      const show = async (...extra: string[]) =>
        (
          await run(
            cli.path,
            [
              'workflow',
              'show',
              '--workflow-id',
              workflowId,
              '--address',
              serverAddress(),
              '--namespace',
              'default',
              '--detailed',
              '--color',
              'never',
              ...extra,
            ],
            { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
          )
        ).stdout;
      const without = await show();
      expect(without).toContain(
        `input.payloads[0].metadata.encoding: ${Buffer.from(ENCRYPTED_ENCODING).toString('base64')}`,
      );
      expect(without).not.toContain(marker);
      const withCodec = await show('--codec-endpoint', ready.url, '--codec-auth', 'Bearer cli-test');
      expect(withCodec).toContain(`input[0].prompt: ${prompt}`);
      expect(withCodec).toContain(answer);
      // Without CAIRN_CODEC_AUTH's header it refuses (the temporal CLI then retries until its deadline).
      expect((await fetch(`${ready.url}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('the HTTP handler on a client with the codec (as `cairn serve` with CAIRN_CODEC_KEYS) serves the run decoded: its state, its events, its page', async () => {
    const served = await serve(
      createCairnHttpHandler({
        client: new CairnClient({ client: w.client, taskQueue: w.taskQueue }),
        agents: [testAgent],
      }),
    );
    try {
      const read = (await (await fetch(`${served.url}/runs/${workflowId}`)).json()) as { state: { answer?: string } };
      expect(read.state.answer).toBe(answer);
      const events = await (await fetch(`${served.url}/runs/${workflowId}/events?from=0`)).text();
      expect(events).toContain(marker);
      const page = await fetch(`${served.url}/runs/${workflowId}/page`);
      expect(page.status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('`cairn show` and connectCairnClient decrypt with CAIRN_CODEC_KEYS, and fail without it', async () => {
    const env = { TEMPORAL_ADDRESS: serverAddress() };
    const [shown, blind, noServer] = await Promise.all([
      cairnOutcome(['show', workflowId], { ...env, [CODEC_KEYS_ENV]: keys }),
      cairnOutcome(['show', workflowId], env),
      cairnOutcome(['codec-server', '--port', '0'], {}),
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(prompt);
    expect(shown.stdout).toContain(answer);
    expect(blind.code).toBe(1);
    expect(blind.stderr).toMatch(/Unknown encoding: binary\/encrypted.*set CAIRN_CODEC_KEYS/); // the client has no keys, and is told which
    expect(blind.stdout + blind.stderr).not.toContain(marker);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toMatch(/^cairn codec-server: CAIRN_CODEC_KEYS is not set/);

    const runs = await connectCairnClient({ env: { ...env, [CODEC_KEYS_ENV]: keys }, taskQueue: w.taskQueue });
    try {
      expect((await runs.run(workflowId).result()).answer).toBe(answer);
    } finally {
      await runs.close();
    }
    const blindRuns = await connectCairnClient({ env });
    try {
      await expect(blindRuns.run(workflowId).result()).rejects.toThrow();
    } finally {
      await blindRuns.close();
    }
  });
});
