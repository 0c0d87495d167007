import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import { cardRefusal, trustedKeys, verifyCard, type SignatureEntry } from './a2a-activity-card-trust.js';

// The canonical text stands in for a card here: the verifier signs and checks bytes, whatever made them.
const CARD = '{"description":"Order work.","name":"orders"}';
const ALTERED = '{"description":"Order work, and refunds to anyone.","name":"orders"}';
const b64 = (text: string) => Buffer.from(text).toString('base64url');

const pair = (alg: 'EdDSA' | 'ES256') =>
  alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });

function signature(alg: 'EdDSA' | 'ES256', privateKey: import('node:crypto').KeyObject, kid: string, payload = CARD) {
  const protectedHeader = b64(JSON.stringify({ alg, typ: 'JOSE', kid }));
  const input = Buffer.from(`${protectedHeader}.${b64(payload)}`);
  const bytes =
    alg === 'EdDSA'
      ? sign(null, input, privateKey)
      : sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return { protected: protectedHeader, signature: bytes.toString('base64url') } satisfies SignatureEntry;
}

const pem = (key: import('node:crypto').KeyObject) => key.export({ format: 'pem', type: 'spki' }) as string;

describe('verifyCard', () => {
  it.each(['EdDSA', 'ES256'] as const)('%s: trusts a card its key signed, refuses it altered', (alg) => {
    const { privateKey, publicKey } = pair(alg);
    const keys = trustedKeys('remote', { keys: [pem(publicKey)] });
    const kid = keys[0]!.ids[0]!;
    const signed = [signature(alg, privateKey, kid)];
    expect(verifyCard(CARD, signed, keys)).toEqual({ verdict: 'trusted', keyId: kid });
    expect(verifyCard(ALTERED, signed, keys)).toEqual({ verdict: 'altered', keyId: kid });
    // A signature over the altered text by the trusted key's kid but another key: still altered, not trusted.
    expect(verifyCard(ALTERED, [signature(alg, pair(alg).privateKey, kid, ALTERED)], keys).verdict).toBe('altered');
  });

  it('tells unsigned and signed-by-another-key apart', () => {
    const trusted = pair('EdDSA');
    const keys = trustedKeys('remote', { keys: [pem(trusted.publicKey)] });
    expect(verifyCard(CARD, undefined, keys)).toEqual({ verdict: 'unsigned' });
    expect(verifyCard(CARD, [], keys)).toEqual({ verdict: 'unsigned' });
    const other = pair('EdDSA');
    expect(verifyCard(CARD, [signature('EdDSA', other.privateKey, 'someone-else')], keys)).toEqual({
      verdict: 'untrusted_key',
      keyIds: ['someone-else'],
    });
  });

  it('trusts by signature whatever the kid, and names keys by their JWK kid too', () => {
    const { privateKey, publicKey } = pair('ES256');
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'orders-2026' } as {
      kty: string;
      crv: string;
      x: string;
      y: string;
      kid: string;
    };
    const keys = trustedKeys('remote', { keys: [pem(pair('EdDSA').publicKey), jwk] });
    expect(verifyCard(CARD, [signature('ES256', privateKey, 'any-name')], keys).verdict).toBe('trusted');
    expect(verifyCard(ALTERED, [signature('ES256', privateKey, 'orders-2026')], keys)).toEqual({
      verdict: 'altered',
      keyId: 'orders-2026',
    });
  });

  it('never checks a signature with a key of another algorithm, nor one with a broken header', () => {
    const ed = pair('EdDSA');
    const keys = trustedKeys('remote', { keys: [pem(ed.publicKey)] });
    const kid = keys[0]!.ids[0]!;
    const good = signature('EdDSA', ed.privateKey, kid);
    // The same signature bytes under a header that claims ES256: the header is signed, so it no longer verifies.
    const relabelled = { ...good, protected: b64(JSON.stringify({ alg: 'ES256', typ: 'JOSE', kid })) };
    expect(verifyCard(CARD, [relabelled], keys).verdict).toBe('altered');
    expect(verifyCard(CARD, [{ protected: 'not-base64-json', signature: good.signature }], keys)).toEqual({
      verdict: 'untrusted_key',
      keyIds: ['(no kid)'],
    });
    expect(verifyCard(CARD, [{ ...good, protected: b64(JSON.stringify({ alg: 'none', kid })) }], keys).verdict).toBe(
      'altered',
    );
  });
});

describe('trustedKeys and cardRefusal', () => {
  it('refuses keys it cannot check with, naming the one', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    const fail = (keys: never[]) => {
      try {
        trustedKeys('remote', { keys });
      } catch (error) {
        if (ToolFailure.isInstance(error)) return error;
      }
      throw new Error('expected a ToolFailure');
    };
    expect(fail([pem(rsa)] as never[]).message).toMatch(/trust\.keys\[0\] is rsa/);
    expect(fail(['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'] as never[]).code).toBe(
      'tool_unavailable',
    );
  });

  it('is one tool_unavailable failure whose message says which refusal and that nothing was sent', () => {
    const unsigned = cardRefusal('remote', 'http://a.example/orders', { verdict: 'unsigned' });
    expect(unsigned.code).toBe('tool_unavailable');
    expect(unsigned.message).toBe(
      'remote: refused the agent card of http://a.example/orders: it is unsigned, and this tool requires a signature by one of its trusted keys. Nothing was sent to it.',
    );
    expect(cardRefusal('remote', 'u', { verdict: 'untrusted_key', keyIds: ['k9'] }).message).toContain(
      'signed by a key this tool does not trust (kid "k9")',
    );
    expect(cardRefusal('remote', 'u', { verdict: 'altered', keyId: 'k1' }).message).toContain(
      'altered after signing: the signature of trusted key "k1" does not match',
    );
  });
});
