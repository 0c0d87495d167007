import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCard, canonicalizeAgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { describe, expect, it, vi } from 'vitest';
import { signedCard } from './agent-card.js';
import { cardSigningFromEnv, createCardSigner, jwkThumbprint } from './card-signing.js';

const card = (over: Partial<AgentCard> = {}): AgentCard =>
  AgentCard.fromJSON({
    name: 'orders',
    description: 'Order work.',
    version: '1.0.0',
    supportedInterfaces: [{ url: 'http://a.example/orders', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'orders', name: 'orders', description: 'Orders.', tags: ['cairn'] }],
    ...over,
  });

const keys = {
  EdDSA: () => generateKeyPairSync('ed25519'),
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
};

/** The SDK's own verifier (jose), with `publicKey` as the key every kid resolves to. */
const sdkVerifies = (publicKey: KeyObject) => verifyAgentCardSignature(async () => publicKey);

describe('the canonical form a card is signed over (the SDK’s canonicalizeAgentCard)', () => {
  // RFC 8785 §3.2.2 / appendix B examples, carried in an extension's free-form params (a Struct).
  const withParams = (params: Record<string, unknown>) =>
    card({ capabilities: { streaming: true, extensions: [{ uri: 'urn:x', params }] } as never });
  const paramsText = (params: Record<string, unknown>) => {
    const text = canonicalizeAgentCard(withParams(params));
    return text.slice(text.indexOf('"params":') + 9, text.indexOf(',"uri"'));
  };

  it('writes numbers as RFC 8785 (ECMAScript) does', () => {
    expect(
      paramsText({ n: [Number('333333333.33333329'), 1e30, 4.5, 2e-3, 1e-27, -0, 1e21, Number('9007199254740993')] }),
    ).toBe('{"n":[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21,9007199254740992]}');
  });

  it('escapes strings as RFC 8785 does: short escapes, lowercase \\u00xx, everything else as is', () => {
    expect(paramsText({ s: '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/' })).toBe(
      '{"s":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units at every depth (RFC 8785 §3.2.3)', () => {
    const keys = { '\u20ac': 1, '\r': 2, '\ufb33': 3, '1': 4, '\ud83d\ude00': 5, '\u0080': 6, '\u00f6': 7 };
    expect(paramsText({ b: keys, a: 0 })).toBe(
      '{"a":0,"b":{"\\r":2,"1":4,"\u0080":6,"\u00f6":7,"\u20ac":1,"\ud83d\ude00":5,"\ufb33":3}}',
    );
  });

  it('leaves out signatures, empty and default values, and fields outside the A2A 1.0 schema', () => {
    const plain = canonicalizeAgentCard(card());
    expect(canonicalizeAgentCard(card({ signatures: [{ protected: 'p', signature: 's', header: undefined }] }))).toBe(
      plain,
    );
    expect(canonicalizeAgentCard({ ...card(), provider: undefined, securitySchemes: {}, extra: 1 } as never)).toBe(
      plain,
    );
    expect(plain.startsWith('{"capabilities":{"streaming":true},"defaultInputModes":["text/plain"]')).toBe(true);
    // Not pure RFC 8785 there: the normalisation (A2A §8.4.1) drops nulls and empties inside free-form JSON too.
    expect(paramsText({ l: [null, true, false, ''], z: 1 })).toBe('{"l":[true,false],"z":1}');
  });
});

describe('createCardSigner', () => {
  it.each(['EdDSA', 'ES256'] as const)(
    '%s: the SDK’s verifier accepts the signature; an altered card fails it',
    async (alg) => {
      const { privateKey, publicKey } = keys[alg]();
      const signer = createCardSigner({ key: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string });
      expect(signer.alg).toBe(alg);
      expect(signer.keyId).toBe(jwkThumbprint(publicKey));
      const signed = signedCard(card(), signer);
      const header = JSON.parse(Buffer.from(signed.signatures[0]!.protected, 'base64url').toString());
      expect(header).toEqual({ alg, typ: 'JOSE', kid: signer.keyId });
      await sdkVerifies(publicKey)(signed);
      // As served: through the JSON form and back.
      await sdkVerifies(publicKey)(AgentCard.fromJSON(AgentCard.toJSON(signed)));
      const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
      await expect(sdkVerifies(publicKey)({ ...signed, description: 'Order work, and more.' })).rejects.toThrow(
        /No valid signatures/,
      );
      await expect(sdkVerifies(keys[alg]().publicKey)(signed)).rejects.toThrow(/No valid signatures/);
      debug.mockRestore();
    },
  );

  it('keeps a card’s own signatures and adds its own; kid and jku as given', async () => {
    const { privateKey, publicKey } = keys.EdDSA();
    const signer = createCardSigner({ key: privateKey, keyId: 'orders-2026', jku: 'https://a.example/jwks.json' });
    const earlier = { protected: 'e30', signature: 'AA', header: undefined };
    const signed = signedCard(card({ signatures: [earlier] }), signer);
    expect(signed.signatures).toHaveLength(2);
    expect(signed.signatures[0]).toEqual(earlier);
    expect(JSON.parse(Buffer.from(signed.signatures[1]!.protected, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      typ: 'JOSE',
      kid: 'orders-2026',
      jku: 'https://a.example/jwks.json',
    });
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    await sdkVerifies(publicKey)(signed); // the first entry does not verify, the second does
    debug.mockRestore();
  });

  it('refuses keys it cannot sign cards with, at once', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => createCardSigner({ key: rsa.privateKey })).toThrow(/is rsa; A2A cards are signed here with Ed25519/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    expect(() => createCardSigner({ key: p384.privateKey })).toThrow(/ec \(secp384r1\)/);
    expect(() => createCardSigner({ key: keys.EdDSA().publicKey })).toThrow(/must be a private key/);
    expect(() => createCardSigner({ key: 'not a key' })).toThrow(/not a private key in PEM/);
  });
});

describe('cardSigningFromEnv', () => {
  const pem = keys.ES256().privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

  it('reads the PEM itself or a PEM file, with the optional kid and jku; nothing when unset', () => {
    expect(cardSigningFromEnv({})).toBeUndefined();
    expect(cardSigningFromEnv({ CAIRN_A2A_SIGNING_KEY: '  ' })).toBeUndefined();
    expect(cardSigningFromEnv({ CAIRN_A2A_SIGNING_KEY: pem, CAIRN_A2A_SIGNING_KEY_ID: 'k1' })).toEqual({
      key: pem.trim(),
      keyId: 'k1',
    });
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-a2a-key-')), 'card.pem');
    writeFileSync(file, pem);
    expect(cardSigningFromEnv({ CAIRN_A2A_SIGNING_KEY: file, CAIRN_A2A_SIGNING_JKU: 'https://a.example/j' })).toEqual({
      key: pem,
      jku: 'https://a.example/j',
    });
  });

  it('throws for a file that is not there or a key it cannot use', () => {
    expect(() => cardSigningFromEnv({ CAIRN_A2A_SIGNING_KEY: '/nonexistent/card.pem' })).toThrow(
      /CAIRN_A2A_SIGNING_KEY is neither a PEM key nor a readable file/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    expect(() => cardSigningFromEnv({ CAIRN_A2A_SIGNING_KEY: rsa as string })).toThrow(/is rsa/);
  });
});
