/**
 * The wire form of a Workflow Streams item (Temporal's `@temporalio/workflow-streams`, shared
 * with its Python counterpart): the base64 of a serialized `temporal.api.common.v1.Payload`
 * protobuf. Cairn's run streams carry JSON items (`encoding: json/plain`), so a Workflow Streams
 * subscriber in any SDK decodes them with its default payload converter. Hand-written (two
 * fields, no protobuf runtime) and free of `Buffer`, so the workflow sandbox can encode.
 * Workflow-safe, deterministic.
 */
import type { JsonValue } from './json/json.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const JSON_PLAIN = 'json/plain';

/** One encoder for every item (it keeps no state); a global looked up per call is slow in the sandbox. */
const encoder = new TextEncoder();

/** Field 1 of every item, `metadata: { encoding: "json/plain" }`, written once. */
const METADATA_FIELD: readonly number[] = (() => {
  const entry: number[] = [];
  field(entry, 1, utf8('encoding'));
  field(entry, 2, utf8(JSON_PLAIN));
  const out: number[] = [];
  field(out, 1, entry);
  return out;
})();

/** `value` as a JSON Payload, serialized and base64-encoded. */
export function encodeJsonItem(value: JsonValue): string {
  const data = encoder.encode(JSON.stringify(value));
  // Field 2, `data`: its tag and length, then the bytes as they are.
  const head = [...METADATA_FIELD, (2 << 3) | 2];
  for (let n = data.length; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      head.push(n);
      break;
    }
    head.push((n & 0x7f) | 0x80);
  }
  const bytes = new Uint8Array(head.length + data.length);
  bytes.set(head);
  bytes.set(data, head.length);
  return base64(bytes);
}

/** The JSON value of an item; undefined when it is not a JSON Payload (or not a Payload at all). */
export function decodeJsonItem(wire: string): JsonValue | undefined {
  try {
    const bytes = unbase64(wire);
    const metadata: Record<string, string> = {};
    let data: number[] = [];
    for (const { number, value } of fields(bytes)) {
      if (number === 2) data = value;
      if (number !== 1) continue;
      let key = '';
      let text = '';
      for (const inner of fields(value)) {
        if (inner.number === 1) key = fromUtf8(inner.value);
        if (inner.number === 2) text = fromUtf8(inner.value);
      }
      metadata[key] = text;
    }
    return metadata.encoding === JSON_PLAIN ? (JSON.parse(fromUtf8(data)) as JsonValue) : undefined;
  } catch {
    return undefined;
  }
}

/** A length-delimited protobuf field (wire type 2). */
function field(out: number[], number: number, value: readonly number[]): void {
  out.push((number << 3) | 2);
  for (let n = value.length; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      out.push(n);
      break;
    }
    out.push((n & 0x7f) | 0x80);
  }
  for (const byte of value) out.push(byte);
}

/** The length-delimited fields of a message; other wire types are refused. */
function* fields(bytes: readonly number[]): Generator<{ number: number; value: number[] }> {
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++]!;
    if ((tag & 7) !== 2) throw new Error(`unexpected wire type ${tag & 7}`);
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      if (i >= bytes.length || shift > 28) throw new Error('bad length');
      const b = bytes[i++]!;
      length += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (i + length > bytes.length) throw new Error('truncated field');
    yield { number: tag >> 3, value: bytes.slice(i, i + length) };
    i += length;
  }
}

function utf8(text: string): number[] {
  return [...new TextEncoder().encode(text)];
}

function fromUtf8(bytes: readonly number[]): string {
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function base64(bytes: Uint8Array): string {
  const length = bytes.length;
  let out = '';
  let i = 0;
  for (; i + 2 < length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  if (i < length) {
    const two = i + 1 < length;
    const n = (bytes[i]! << 16) | (two ? bytes[i + 1]! << 8 : 0);
    out += `${ALPHABET[(n >> 18) & 63]}${ALPHABET[(n >> 12) & 63]}${two ? ALPHABET[(n >> 6) & 63] : '='}=`;
  }
  return out;
}

function unbase64(text: string): number[] {
  const clean = text.replace(/=+$/, '');
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 4) {
    const digits = [...clean.slice(i, i + 4)].map((ch) => {
      const d = ALPHABET.indexOf(ch);
      if (d < 0) throw new Error('not base64');
      return d;
    });
    const n = digits.reduce((acc, d, k) => acc | (d << (18 - 6 * k)), 0);
    out.push((n >> 16) & 255);
    if (digits.length > 2) out.push((n >> 8) & 255);
    if (digits.length > 3) out.push(n & 255);
  }
  return out;
}
