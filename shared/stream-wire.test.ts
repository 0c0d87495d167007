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
});
