/**
 * Signed agent cards, the caller side: the worker checks a remote agent's card against the keys
 * an `a2aAgent` tool trusts (`trust.keys`) before it sends anything. A card's `signatures` are
 * flattened JWS (RFC 7515) over its canonical form (A2A 1.0 §8.4: the card without `signatures`,
 * normalised to the schema, RFC 8785 JSON — `canonicalizeAgentCard` of `@a2a-js/sdk`, computed by
 * the caller and passed in, so this file needs no SDK). Accepted: `EdDSA` (Ed25519) and `ES256`
 * (P-256, R‖S). The verdict says which of three ways a card fails — unsigned, signed by a key this
 * tool does not trust, or altered after a trusted key signed it — and `cardRefusal` turns it into
 * the one `tool_unavailable` failure the model and the operator read. A `jku` in a header is never
 * fetched: trust is what the tool's settings say, not what the card points to. Worker side only.
 */
import { createHash, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import type { A2ACardTrust } from '../shared/tools/a2a-agent.js';

/** A trusted public key, parsed, with the ids a signature's `kid` may name it by. */
export interface TrustedKey {
  readonly key: KeyObject;
  readonly alg: 'EdDSA' | 'ES256';
  /** Its RFC 7638 thumbprint, and its JWK `kid` when it was given as a JWK with one. */
  readonly ids: readonly string[];
}

/** What a card's signatures say about it. */
export type CardVerdict =
  | { readonly verdict: 'trusted'; readonly keyId: string }
  | { readonly verdict: 'unsigned' }
  | { readonly verdict: 'untrusted_key'; readonly keyIds: readonly string[] }
  | { readonly verdict: 'altered'; readonly keyId: string };

/** The signature entry as a card carries it (`AgentCardSignature`); the unprotected `header` is not signed and not read. */
export interface SignatureEntry {
  readonly protected: string;
  readonly signature: string;
}

/** The tool's trusted keys, parsed. Throws a `tool_unavailable` ToolFailure naming the key that cannot be used. */
export function trustedKeys(tool: string, trust: A2ACardTrust): TrustedKey[] {
  return trust.keys.map((given, index) => {
    let key: KeyObject;
    try {
      key =
        typeof given === 'string'
          ? createPublicKey(given)
          : createPublicKey({ key: { ...given } as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw ToolFailure.unavailable(
        `${tool}: trust.keys[${index}] is not a public key this worker can read (${(error as Error).message}); fix the tool's trust settings.`,
      );
    }
    const alg = algorithmOf(key);
    if (!alg)
      throw ToolFailure.unavailable(
        `${tool}: trust.keys[${index}] is ${key.asymmetricKeyType}; A2A card signatures are checked with Ed25519 or P-256 keys.`,
      );
    const kid = typeof given === 'string' ? undefined : given.kid;
    return { key, alg, ids: [jwkThumbprint(key), ...(kid ? [kid] : [])] };
  });
}

/**
 * The verdict on a card whose canonical text is `canonicalCard`: trusted when one signature
 * verifies under one trusted key (whatever its `kid`); otherwise altered when a signature names a
 * trusted key (its `kid`) yet does not verify, and signed by an untrusted key when none does.
 */
export function verifyCard(
  canonicalCard: string,
  signatures: readonly SignatureEntry[] | undefined,
  keys: readonly TrustedKey[],
): CardVerdict {
  if (!signatures || signatures.length === 0) return { verdict: 'unsigned' };
  const payload = Buffer.from(canonicalCard, 'utf8').toString('base64url');
  const named: string[] = [];
  let alteredBy: string | undefined;
  for (const entry of signatures) {
    const header = protectedHeader(entry);
    const kid = typeof header?.kid === 'string' ? header.kid : '(no kid)';
    named.push(kid);
    const known = keys.find((k) => k.ids.includes(kid));
    if (known && !alteredBy) alteredBy = kid;
    if (!header || (header.alg !== 'EdDSA' && header.alg !== 'ES256')) continue;
    const input = Buffer.from(`${entry.protected}.${payload}`, 'ascii');
    const signature = Buffer.from(entry.signature, 'base64url');
    // The header's alg must be the key's own: an ES256 header never checks against an Ed25519 key.
    for (const trusted of keys.filter((k) => k.alg === header.alg)) {
      const ok =
        trusted.alg === 'EdDSA'
          ? verify(null, input, trusted.key, signature)
          : verify('sha256', input, { key: trusted.key, dsaEncoding: 'ieee-p1363' }, signature);
      if (ok) return { verdict: 'trusted', keyId: kid };
    }
  }
  return alteredBy ? { verdict: 'altered', keyId: alteredBy } : { verdict: 'untrusted_key', keyIds: named };
}

/** The one failure for a refused card: `tool_unavailable`, its message saying which refusal and that nothing was sent. */
export function cardRefusal(
  tool: string,
  url: string,
  verdict: Exclude<CardVerdict, { verdict: 'trusted' }>,
): ToolFailure {
  const why =
    verdict.verdict === 'unsigned'
      ? 'it is unsigned, and this tool requires a signature by one of its trusted keys'
      : verdict.verdict === 'altered'
        ? `it was altered after signing: the signature of trusted key "${verdict.keyId}" does not match the card's content`
        : `it is signed by a key this tool does not trust (kid ${verdict.keyIds.map((k) => `"${k}"`).join(', ')})`;
  return new ToolFailure(
    'tool_unavailable',
    `${tool}: refused the agent card of ${url}: ${why}. Nothing was sent to it.`,
    {
      hint: {
        message: `${tool}'s remote agent could not be verified (signed agent card: ${verdict.verdict}); do not call it again in this run.`,
      },
    },
  );
}

function protectedHeader(entry: SignatureEntry): Record<string, unknown> | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(entry.protected, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && !Array.isArray(header)
      ? (header as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function algorithmOf(key: KeyObject): 'EdDSA' | 'ES256' | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  return undefined;
}

/** RFC 7638 thumbprint, as servers/a2a/card-signing.ts computes a Cairn server's default `kid`. */
function jwkThumbprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const members =
    jwk.kty === 'OKP' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
