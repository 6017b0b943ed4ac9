// Rotation of an inbound token in place (SPEC "Personal token lifecycle", Authentication 4-5): the
// new value works at once, the previous one stays accepted for 24 h, and the callback signing
// secret is renewed. One rule for the owner's rotation and for a claim that rotates.
import type { InboundToken } from './tokens.entity.js';
import { newSigningSecret, newTokenValue, sha256Hex, TOKEN_PREFIX } from './token-crypto.js';
import { displayPrefix } from './token-format.rules.js';
import { ROTATION_OVERLAP_MS } from './token-lifecycle.rules.js';

/** Rotates `t` (the caller flushes); returns the new value, shown once. */
export function rotateTokenValue(t: InboundToken, now: Date): string {
  const token = newTokenValue(TOKEN_PREFIX.personal);
  t.priorTokenHash = t.tokenHash;
  t.priorValidUntil = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  t.tokenHash = sha256Hex(token);
  t.displayPrefix = displayPrefix(token);
  t.callbackSecret = newSigningSecret();
  t.rotatedAt = now;
  return token;
}
