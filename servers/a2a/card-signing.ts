/**
 * Signed agent cards, the server side (A2A 1.0 §8.4): every card a server gives carries a JWS
 * (RFC 7515, flattened JSON, as `AgentCardSignature { protected, signature }`) over the card's
 * canonical form — the card without `signatures`, normalised to the A2A 1.0 schema and written
 * as RFC 8785 JSON (`canonicalizeAgentCard` of `@a2a-js/sdk`, so Cairn signs the very bytes the
 * SDK's verifier and Cairn's `a2aAgent` check). The key is the operator's: an Ed25519 private
 * key (alg `EdDSA`) or a P-256 one (alg `ES256`, the signature in the JWS form R‖S, not DER).
 * Signing is synchronous Node crypto, so a card is signed once, when its endpoint is built.
 * This file does not load `@a2a-js/sdk`: it signs the canonical text it is given. Node-only.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The operator's card-signing key: every card the server gives is signed with it. */
export interface A2ACardSigning {
  /** The private key: PEM text (PKCS#8 `-----BEGIN PRIVATE KEY-----`, or SEC1 for P-256) or a `KeyObject`. Ed25519 or P-256. */
  readonly key: string | KeyObject;
  /** The JWS `kid`. Default: the key's RFC 7638 JWK thumbprint, which `a2aAgent` computes from a trusted public key too. */
  readonly keyId?: string;
  /** The JWS `jku`: where callers may fetch your public keys (a JWKS URL). Cairn's `a2aAgent` never fetches it; its trust is configured. */
  readonly jku?: string;
}

/** What goes in a card's `signatures`: one flattened JWS without its payload (the payload is the card). */
export interface CardSignature {
  readonly protected: string;
  readonly signature: string;
}

/** Signs a card's canonical text. */
export interface CardSigner {
  readonly alg: 'EdDSA' | 'ES256';
  readonly keyId: string;
  sign(canonicalCard: string): CardSignature;
}

/** The environment variables `cardSigningFromEnv` reads. */
export const CARD_SIGNING_ENV = {
  key: 'CAIRN_A2A_SIGNING_KEY',
  keyId: 'CAIRN_A2A_SIGNING_KEY_ID',
  jku: 'CAIRN_A2A_SIGNING_JKU',
} as const;

/**
 * The card-signing key an operator gives in the environment: `CAIRN_A2A_SIGNING_KEY` is the PEM
 * text itself or the path of a PEM file; `CAIRN_A2A_SIGNING_KEY_ID` and `CAIRN_A2A_SIGNING_JKU`
 * are optional. Undefined when the key is not set (cards are then unsigned). Throws when the
 * file cannot be read or the key is not an Ed25519 or P-256 private key, so a server with a
 * broken key does not start. Node-only.
 *
 * @example
 * ```ts
 * createCairnA2AHandler({ client, agents, cardSigning: cardSigningFromEnv() });
 * ```
 */
export function cardSigningFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): A2ACardSigning | undefined {
  const value = env[CARD_SIGNING_ENV.key]?.trim();
  if (!value) return undefined;
  let key: string;
  if (value.includes('-----BEGIN')) key = value;
  else {
    try {
      key = readFileSync(value, 'utf8');
    } catch (error) {
      throw new Error(`${CARD_SIGNING_ENV.key} is neither a PEM key nor a readable file: ${(error as Error).message}`);
    }
  }
  const signing: A2ACardSigning = {
    key,
    ...(env[CARD_SIGNING_ENV.keyId] && { keyId: env[CARD_SIGNING_ENV.keyId] }),
    ...(env[CARD_SIGNING_ENV.jku] && { jku: env[CARD_SIGNING_ENV.jku] }),
  };
  createCardSigner(signing);
  return signing;
}

/** A signer for `signing`'s key. Throws (a plain Error, at start) for a key that is not an Ed25519 or P-256 private key. */
export function createCardSigner(signing: A2ACardSigning): CardSigner {
  let key: KeyObject;
  try {
    key = typeof signing.key === 'string' ? createPrivateKey(signing.key) : signing.key;
  } catch (error) {
    throw new Error(`cardSigning.key is not a private key in PEM: ${(error as Error).message}`);
  }
  if (key.type !== 'private')
    throw new Error('cardSigning.key must be a private key (the public one goes to callers).');
  const alg = algorithmOf(key);
  if (!alg)
    throw new Error(
      `cardSigning.key is ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''}; A2A cards are signed here with Ed25519 (EdDSA) or P-256 (ES256).`,
    );
  const keyId = signing.keyId ?? jwkThumbprint(createPublicKey(key));
  // Key order as the A2A examples write it; the header is signed as these exact bytes.
  const header = { alg, typ: 'JOSE', kid: keyId, ...(signing.jku && { jku: signing.jku }) };
  const protectedHeader = base64url(JSON.stringify(header));
  return {
    alg,
    keyId,
    sign(canonicalCard) {
      const input = Buffer.from(`${protectedHeader}.${base64url(canonicalCard)}`);
      const signature =
        alg === 'EdDSA' ? sign(null, input, key) : sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
      return { protected: protectedHeader, signature: signature.toString('base64url') };
    },
  };
}

/** The JWS alg for a key, or undefined when A2A cards are not signed with its kind here. */
export function algorithmOf(key: KeyObject): 'EdDSA' | 'ES256' | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  return undefined;
}

/** RFC 7638: SHA-256 over the key's required JWK members in lexicographic order, base64url. */
export function jwkThumbprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const members =
    jwk.kty === 'OKP' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
