/** The Workflow Streams wire form, checked against Temporal's own Payload protobuf and converter. */
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decodeJsonItem, encodeJsonItem } from './stream-wire.js';

describe('stream wire items', () => {
  const values = [
    { type: 'tool_end', result: { error: { code: 'timeout', message: 'é ✓ 𝄞' } } },
    'text',
    42,
    null,
    [1, { a: [] }],
    { big: 'x'.repeat(70_000) },
  ];

  it.each(values.map((v) => [JSON.stringify(v).slice(0, 40), v]))(
    '%s round-trips, and decodes as a Temporal Payload',
    (_name, value) => {
      const wire = encodeJsonItem(value as never);
      expect(decodeJsonItem(wire)).toEqual(value);
      const payload = temporal.api.common.v1.Payload.decode(Buffer.from(wire, 'base64'));
      expect(defaultPayloadConverter.fromPayload(payload)).toEqual(value);
    },
  );

  it('reads what Temporal itself encodes, and refuses what is not a JSON Payload', () => {
    const theirs = Buffer.from(
      temporal.api.common.v1.Payload.encode(defaultPayloadConverter.toPayload({ ok: true })).finish(),
    ).toString('base64');
    expect(decodeJsonItem(theirs)).toEqual({ ok: true });
    const binary = Buffer.from(
      temporal.api.common.v1.Payload.encode(defaultPayloadConverter.toPayload(new Uint8Array([1, 2]))).finish(),
    ).toString('base64');
    expect(decodeJsonItem(binary)).toBeUndefined();
    for (const bad of ['', '!!!!', 'AAAA', Buffer.from([0x0a, 0xff]).toString('base64')])
      expect(decodeJsonItem(bad)).toBeUndefined();
  });

  it('writes canonical base64, padding included, and lengths past one varint byte', () => {
    for (const value of [42, 'text', null, 'x'.repeat(126), 'x'.repeat(20_000)]) {
      const wire = encodeJsonItem(value);
      expect(Buffer.from(wire, 'base64').toString('base64')).toBe(wire);
      expect(decodeJsonItem(wire)).toEqual(value);
    }
    // A data field of exactly 128 bytes is the first whose length takes two varint bytes.
    const payload = temporal.api.common.v1.Payload.decode(Buffer.from(encodeJsonItem('x'.repeat(126)), 'base64'));
    expect(payload.data).toHaveLength(128);
  });

  /** A protobuf message of length-delimited fields, written by hand (lengths under 128). */
  const message = (...fields: [number, readonly number[]][]): number[] =>
    fields.flatMap(([number, value]) => [(number << 3) | 2, value.length, ...value]);
  const bytesOf = (text: string): number[] => [...Buffer.from(text)];
  const wireOf = (bytes: readonly number[]): string => Buffer.from(bytes).toString('base64');
  const entry = message([1, bytesOf('encoding')], [2, bytesOf('json/plain')]);

  it('reads fields in any order, as protobuf allows', () => {
    expect(decodeJsonItem(wireOf(message([2, bytesOf('[1]')], [1, entry])))).toEqual([1]);
    const valueFirst = message([2, bytesOf('json/plain')], [1, bytesOf('encoding')]);
    expect(decodeJsonItem(wireOf(message([1, valueFirst], [2, bytesOf('7')])))).toBe(7);
    // A length written in more varint bytes than it needs (five at most) is still a length.
    expect(decodeJsonItem(wireOf([0x0a, 0x96, 0x80, 0x80, 0x80, 0x00, ...entry, 0x12, 1, 0x35]))).toBe(5);
  });

  it('decodes only JSON Payloads, and nothing cut short, out of shape or of another wire type', () => {
    const protobuf = message([1, bytesOf('encoding')], [2, bytesOf('json/protobuf')]);
    expect(decodeJsonItem(wireOf(message([1, protobuf], [2, bytesOf('{}')])))).toBeUndefined();
    const whole = Buffer.from(encodeJsonItem(42), 'base64');
    expect(decodeJsonItem(whole.subarray(0, -1).toString('base64'))).toBeUndefined();
    // A varint field (wire type 0) is not something a Payload carries.
    expect(decodeJsonItem(wireOf([...whole, 0x28, 0x01, 0x00]))).toBeUndefined();
    const unpadded = encodeJsonItem(null);
    expect(decodeJsonItem(unpadded)).toBeNull();
    expect(decodeJsonItem(`${unpadded.slice(0, 4)}=${unpadded.slice(4)}`)).toBeUndefined();
  });
});
