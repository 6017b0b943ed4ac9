// Pure rules of the personal token lifecycle (SPEC "Personal token lifecycle", Limits).
import { hashesEqual, sha256Hex } from './token-crypto.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

export const ROTATION_OVERLAP_MS = TOKEN_LIMITS.rotationOverlapHours * 60 * 60 * 1000;
export const INACTIVITY_EXPIRY_MS = 365 * 24 * 60 * 60 * 1000;
export const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

export const hashToken = sha256Hex;

export interface UsabilityInput {
  status: string;
  token_hash: string;
  prior_token_hash: string | null;
  prior_valid_until: Date | string | null;
  kind: string;
  last_used_at: Date | string | null;
  created_at: Date | string;
  user_status: string;
}

/** Personal and moderation tokens expire after 12 months without use (tools-tokens do not). */
const EXPIRING_KINDS: ReadonlySet<string> = new Set(['personal', 'moderation']);

/** True once a token of an expiring kind has gone unused (or, never used, unissued) for 12 months. */
export function isInactiveExpired(t: Pick<UsabilityInput, 'kind' | 'last_used_at' | 'created_at'>, now: Date): boolean {
  return EXPIRING_KINDS.has(t.kind) && now.getTime() - new Date(t.last_used_at ?? t.created_at).getTime() > INACTIVITY_EXPIRY_MS;
}

export function isUsable(t: UsabilityInput, presentedHash: string, now: Date): { ok: true } | { ok: false; reason: string } {
  if (t.user_status !== 'active') return { ok: false, reason: 'the token owner is no longer active' };
  if (t.status === 'revoked') return { ok: false, reason: 'token revoked' };
  if (t.status === 'disabled') return { ok: false, reason: 'token disabled by its owner' };
  // The daily scan marks these auto_expired; until it runs, the age alone already refuses them.
  if (t.status === 'auto_expired' || isInactiveExpired(t, now)) return { ok: false, reason: 'token expired after 12 months without use' };
  if (hashesEqual(t.token_hash, presentedHash)) return { ok: true };
  // Presented value is the previous one: accepted during the rotation overlap only.
  if (t.prior_token_hash !== null && hashesEqual(t.prior_token_hash, presentedHash) && t.prior_valid_until !== null && now < new Date(t.prior_valid_until)) {
    return { ok: true };
  }
  return { ok: false, reason: 'token was rotated; the previous value is no longer accepted' };
}
