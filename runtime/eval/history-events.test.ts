import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { recordingOf } from '../../shared/eval/recording.js';
import { AesGcmPayloadCodec, generateCodecKey, parseCodecKeys } from '../payload-codec.js';
import { historyEvents } from './history-events.js';

const history = async (): Promise<History> =>
  historyFromJSON(
    JSON.parse(await readFile(join(import.meta.dirname, '../../test/histories/review-accept.json'), 'utf8')),
  );

describe('historyEvents', () => {
  it("reads an encrypted history through the workers' codec, and names the codec when it is missing", async () => {
    const codec = new AesGcmPayloadCodec(parseCodecKeys(generateCodecKey('k1')));
    const plain = await history();
    const encrypted = await history();
    // Every payload of every event, encrypted the way a worker with the codec writes it.
    const encrypt = async (value: unknown): Promise<void> => {
      if (!value || typeof value !== 'object') return;
      const payloads = (value as { payloads?: unknown }).payloads;
      if (Array.isArray(payloads) && payloads.every((p) => p && typeof p === 'object' && 'data' in p))
        (value as { payloads: unknown }).payloads = await codec.encode(payloads);
      else for (const child of Object.values(value)) await encrypt(child);
    };
    for (const event of encrypted.events ?? []) await encrypt(event);

    const expected = recordingOf(await historyEvents(plain));
    expect(recordingOf(await historyEvents(encrypted, { payloadCodecs: [codec] }))).toEqual(expected);
    expect(expected.reviews).toHaveLength(2);
    await expect(historyEvents(encrypted)).rejects.toMatchObject({
      code: 'unreadable',
      message: expect.stringMatching(/give the evaluation the codec the workers use/),
    });
  });
});
