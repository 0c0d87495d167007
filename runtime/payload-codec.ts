/**
 * Encrypted payloads: an AES-256-GCM PayloadCodec with key ids and rotation, configured from the
 * environment (CAIRN_CODEC_KEYS). Every payload a worker or client sends (workflow input, activity
 * arguments and results, Updates, Signals, Query answers, memos, summaries) is replaced by one whose
 * `data` is `iv ‖ ciphertext ‖ tag` of the original payload (serialized as Temporal's Payload
 * protobuf) and whose metadata names the key: `encoding: binary/encrypted`,
 * `encryption-key-id: <id>`. Encoding uses the current key; decoding uses whichever configured key
 * the payload names, so old keys keep decrypting after a rotation. Codecs run outside the workflow
 * sandbox (worker and client), so workflow bundles need nothing. Node-only; never workflow code.
 * docs/encryption.md.
 */
import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';

/** The environment variable with the keys: `id:<base64 of 32 bytes>`, comma-separated, the current key first. */
export const CODEC_KEYS_ENV = 'CAIRN_CODEC_KEYS';
/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata entry naming the key a payload was encrypted with. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface CodecKey {
  /** Written into each payload's metadata: letters, digits, `.`, `_`, `-` (at most 64). Never secret. */
  readonly id: string;
  /** 32 bytes of key material. */
  readonly key: Uint8Array;
}

/** A payload names a key id this codec has no key for, or its ciphertext does not check out. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
  constructor(
    message: string,
    /** The key id the payload names ('' when it names none). */
    readonly keyId: string,
  ) {
    super(message);
  }
}

/**
 * AES-256-GCM over whole payloads. `keys[0]` (or `currentKeyId`) encrypts; every key decrypts the
 * payloads that name it. Payloads that are not `binary/encrypted` decode unchanged.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  readonly #keys = new Map<string, Buffer>();
  /** The id of the key new payloads are encrypted with. */
  readonly currentKeyId: string;

  constructor(keys: readonly CodecKey[], options: { readonly currentKeyId?: string } = {}) {
    if (keys.length === 0) throw new Error('AesGcmPayloadCodec needs at least one key.');
    for (const { id, key } of keys) {
      if (!KEY_ID.test(id)) throw new Error(`Codec key id "${id}" must be 1-64 letters, digits, ".", "_" or "-".`);
      if (key.length !== KEY_BYTES)
        throw new Error(`Codec key "${id}" has ${key.length} bytes; AES-256 needs exactly ${KEY_BYTES}.`);
      if (this.#keys.has(id)) throw new Error(`Codec key id "${id}" is configured twice.`);
      this.#keys.set(id, Buffer.from(key));
    }
    this.currentKeyId = options.currentKeyId ?? keys[0]!.id;
    if (!this.#keys.has(this.currentKeyId))
      throw new Error(
        `The current codec key "${this.currentKeyId}" is not among the keys (${this.keyIds.join(', ')}).`,
      );
  }

  /** The configured key ids, the current one first. */
  get keyIds(): string[] {
    return [this.currentKeyId, ...[...this.#keys.keys()].filter((id) => id !== this.currentKeyId)];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.#keys.get(this.currentKeyId)!;
    const aad = Buffer.from(this.currentKeyId, 'utf8');
    return payloads.map((payload) => {
      // A reference to externally stored data (Temporal's external storage) holds no user data: kept as is.
      if (payload.externalPayloads?.length) return payload;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const sealed = Buffer.concat([iv, cipher.update(serializePayload(payload)), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(this.currentKeyId) },
        data: new Uint8Array(sealed.buffer, sealed.byteOffset, sealed.byteLength),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || Buffer.from(encoding).toString('utf8') !== ENCRYPTED_ENCODING) return payload;
      const idBytes = payload.metadata?.[KEY_ID_METADATA];
      const keyId = idBytes ? Buffer.from(idBytes).toString('utf8') : '';
      if (!keyId)
        throw new PayloadDecryptionError(
          `An encrypted payload has no "${KEY_ID_METADATA}" metadata: it was not written by this codec.`,
          '',
        );
      const key = this.#keys.get(keyId);
      if (!key)
        throw new PayloadDecryptionError(
          `A payload is encrypted with key "${keyId}", which is not configured (configured: ${this.keyIds.join(', ')}). ` +
            `Add "${keyId}:<its base64 key>" to ${CODEC_KEYS_ENV} after the current key.`,
          keyId,
        );
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new PayloadDecryptionError(
          `A payload encrypted with key "${keyId}" is too short to be AES-256-GCM ciphertext.`,
          keyId,
        );
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(keyId, 'utf8'));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return parsePayload(plain);
      } catch (error) {
        throw new PayloadDecryptionError(
          `A payload encrypted with key "${keyId}" does not decrypt with the configured key "${keyId}": a different key under the same id, or a corrupted payload (${(error as Error).message}).`,
          keyId,
        );
      }
    });
  }
}

/**
 * Keys from their text form: `id:<base64>`, comma- (or whitespace-) separated, the current key
 * first, e.g. `k2:…,k1:…`. Errors name the entry, never its key material.
 */
export function parseCodecKeys(text: string, source = CODEC_KEYS_ENV): CodecKey[] {
  const entries = text.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) throw new Error(`${source} is empty: give at least one key, "id:<base64 of 32 bytes>".`);
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new Error(`${source} entry ${index + 1} is not "id:<base64 of 32 bytes>".`);
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new Error(`${source}: key id "${id}" must be 1-64 letters, digits, ".", "_" or "-".`);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && !/^[A-Za-z0-9_-]+={0,2}$/.test(encoded))
      throw new Error(`${source}: key "${id}" is not base64.`);
    const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
    if (key.length !== KEY_BYTES)
      throw new Error(
        `${source}: key "${id}" is ${key.length} bytes; AES-256 needs exactly ${KEY_BYTES} (e.g. \`openssl rand -base64 32\`).`,
      );
    return { id, key: new Uint8Array(key) };
  });
}

/** The codec CAIRN_CODEC_KEYS configures, or undefined when it is unset or blank. Throws on a malformed value. */
export function codecFromEnvironment(env: NodeJS.ProcessEnv = process.env): AesGcmPayloadCodec | undefined {
  const text = env[CODEC_KEYS_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  return new AesGcmPayloadCodec(parseCodecKeys(text));
}

/** `{ payloadCodecs: [codec] }` for Temporal's Client and Worker when CAIRN_CODEC_KEYS is set; else undefined. */
export function dataConverterFromEnvironment(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const codec = codecFromEnvironment(env);
  return codec && { payloadCodecs: [codec] };
}

/** A fresh random key in the text form CAIRN_CODEC_KEYS takes (`id:<base64>`). */
export function generateCodecKey(id: string): string {
  if (!KEY_ID.test(id)) throw new Error(`Codec key id "${id}" must be 1-64 letters, digits, ".", "_" or "-".`);
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** True when the value equals `expected`, in time independent of where they differ. */
export function constantTimeEquals(value: string, expected: string): boolean {
  const a = Buffer.from(value, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

// A Payload as Temporal's protobuf (`map<string, bytes> metadata = 1; bytes data = 2;`), by hand:
// the same bytes `temporal.api.common.v1.Payload.encode` writes, without a protobuf runtime.

function serializePayload(payload: Payload): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (value == null) continue;
    const entry = Buffer.concat([field(1, Buffer.from(key, 'utf8')), field(2, value)]);
    parts.push(field(1, entry));
  }
  if (payload.data && payload.data.length > 0) parts.push(field(2, payload.data));
  return Buffer.concat(parts);
}

function parsePayload(bytes: Buffer): Payload {
  const metadata: Record<string, Uint8Array> = {};
  let data = new Uint8Array();
  for (const { number, value } of fields(bytes)) {
    if (number === 2) data = new Uint8Array(value);
    if (number !== 1) continue;
    let key = '';
    let entryValue = new Uint8Array();
    for (const inner of fields(value)) {
      if (inner.number === 1) key = inner.value.toString('utf8');
      if (inner.number === 2) entryValue = new Uint8Array(inner.value);
    }
    metadata[key] = entryValue;
  }
  return { metadata, data };
}

function field(number: number, value: Uint8Array): Buffer {
  const head: number[] = [(number << 3) | 2];
  for (let n = value.length; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      head.push(n);
      break;
    }
    head.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from(head), value]);
}

function* fields(bytes: Buffer): Generator<{ number: number; value: Buffer }> {
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++]!;
    if ((tag & 7) !== 2) throw new Error(`unexpected protobuf wire type ${tag & 7}`);
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      if (i >= bytes.length || shift > 35) throw new Error('bad protobuf length');
      const b = bytes[i++]!;
      length += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (i + length > bytes.length) throw new Error('truncated protobuf field');
    yield { number: tag >> 3, value: bytes.subarray(i, i + length) };
    i += length;
  }
}

function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}
