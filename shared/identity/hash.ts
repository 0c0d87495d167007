/**
 * A fast, deterministic, non-cryptographic hash: 64-bit FNV-1a over UTF-8, as 16 hex digits.
 * Two 32-bit lanes instead of BigInt keep it fast; no `crypto` (absent in the workflow sandbox).
 * Good for keys and budgets (same call → same hash), not for security. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import { canonicalJson } from '../json/canonical-json.js';

/** 64-bit FNV-1a of the UTF-8 bytes of `text`, as 16 lowercase hex digits. */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325; prime 0x100000001b3 = 2^40 + 0x1b3.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const mix = (byte: number): void => {
    lo = (lo ^ byte) >>> 0;
    const low = lo * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + Math.floor(low / 0x1_0000_0000) + (lo << 8)) >>> 0;
    lo = low >>> 0;
  };
  for (let i = 0; i < text.length; i++) {
    let code = text.codePointAt(i)!;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // lone surrogate: hash as U+FFFD, like TextEncoder
    if (code < 0x80) mix(code);
    else if (code < 0x800) {
      mix(0xc0 | (code >> 6));
      mix(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      mix(0xe0 | (code >> 12));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    } else {
      mix(0xf0 | (code >> 18));
      mix(0x80 | ((code >> 12) & 0x3f));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    }
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** The hash of a call's arguments, independent of key order: `fnv1a64(canonicalJson(args))`. */
export function argsHash(args: JsonValue): string {
  return fnv1a64(canonicalJson(args));
}
