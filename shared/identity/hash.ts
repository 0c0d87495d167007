/**
 * A fast, deterministic, non-cryptographic hash: 64-bit FNV-1a over UTF-8, as 16 hex digits.
 * Two 32-bit lanes instead of BigInt keep it fast; no `crypto` (absent in the workflow sandbox).
 * Good for keys and budgets (same call → same hash), not for security. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import { canonicalJson } from '../json/canonical-json.js';

/** 64-bit FNV-1a of the UTF-8 bytes of `text`, as 16 lowercase hex digits. */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325; prime 0x100000001b3 = 2^40 + 0x1b3. The byte step is
  // written out in the loop (no closure per byte) and names no global (`Math.imul`): in the
  // workflow sandbox each global lookup is slow, and transcript digests hash every message.
  // `hi * 0x1b3` and `low` stay below 2^42, exact as doubles; `>>> 0` takes them mod 2^32.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  let bytes = [0, 0, 0, 0];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    let count: number;
    if (code < 0x80) {
      // ASCII, most of any transcript: one byte.
      lo = (lo ^ code) >>> 0;
      const low = lo * 0x1b3;
      hi = (hi * 0x1b3 + ((low / 0x1_0000_0000) >>> 0) + (lo << 8)) >>> 0;
      lo = low >>> 0;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const full = text.codePointAt(i)!;
      if (full > 0xffff) {
        code = full;
        i++;
      } else code = 0xfffd; // lone surrogate: hash as U+FFFD, like TextEncoder
    }
    if (code < 0x800) {
      bytes = [0xc0 | (code >> 6), 0x80 | (code & 0x3f), 0, 0];
      count = 2;
    } else if (code < 0x10000) {
      bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f), 0];
      count = 3;
    } else {
      bytes = [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      count = 4;
    }
    for (let k = 0; k < count; k++) {
      lo = (lo ^ bytes[k]!) >>> 0;
      const low = lo * 0x1b3;
      hi = (hi * 0x1b3 + ((low / 0x1_0000_0000) >>> 0) + (lo << 8)) >>> 0;
      lo = low >>> 0;
    }
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** The hash of a call's arguments, independent of key order: `fnv1a64(canonicalJson(args))`. */
export function argsHash(args: JsonValue): string {
  return fnv1a64(canonicalJson(args));
}
