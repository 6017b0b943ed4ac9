// Pure rules of inactivity expiry (SPEC "Personal token lifecycle": `active` -> `auto_expired` after
// 12 months without use, a daily scan, owner warned by mail 30 days ahead; Limits "Token inactivity
// expiry 12 months, personal and agent tokens"; Authentication 6).
//
// "Last use" is last_used_at, or created_at for a token never used. An expiry cycle is identified by
// that instant: any use moves it and so starts a new cycle (a new warning may follow 11 months later).
import { INACTIVITY_EXPIRY_MS } from './token-lifecycle.rules.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The owner is warned this long before a token expires. */
export const INACTIVITY_WARNING_LEAD_MS = 30 * DAY_MS;

export type InactivityTokenFamily = 'inbound' | 'agent';

export interface InactivityCutoffs {
  /** A token whose last use is at or before this instant expires now. */
  expireAtOrBefore: Date;
  /** A token whose last use is at or before this instant (and after expireAtOrBefore) gets its warning. */
  warnAtOrBefore: Date;
}

export function inactivityCutoffs(now: Date): InactivityCutoffs {
  return {
    expireAtOrBefore: new Date(now.getTime() - INACTIVITY_EXPIRY_MS),
    warnAtOrBefore: new Date(now.getTime() - INACTIVITY_EXPIRY_MS + INACTIVITY_WARNING_LEAD_MS),
  };
}

/** When a token last used at `lastUse` expires (if unused until then). */
export function expiresAt(lastUse: Date): Date {
  return new Date(lastUse.getTime() + INACTIVITY_EXPIRY_MS);
}

export function isInactive(lastUse: Date, now: Date): boolean {
  return now.getTime() - lastUse.getTime() >= INACTIVITY_EXPIRY_MS;
}

/** One warning per token per expiry cycle: the key names the token and the last use that started the cycle. */
export function warningDedupeKey(family: InactivityTokenFamily, tokenId: string, lastUse: Date): string {
  return `token-inactivity-warning:${family}:${tokenId}:${lastUse.getTime()}`;
}

export interface WarningMailInput {
  family: InactivityTokenFamily;
  /** `personal`, `moderation` or `agent`. */
  kind: string;
  label: string;
  displayPrefix: string;
  /** null = never used (the cycle started at creation). */
  lastUsedAt: Date | null;
  createdAt: Date;
  publicBaseUrl: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The warning mail. It names the token by label and display prefix only: the service never has the
 * value (it stores a hash), and a mail must never carry one anyway.
 */
export function renderInactivityWarning(m: WarningMailInput): { subject: string; text: string } {
  const lastUse = m.lastUsedAt ?? m.createdAt;
  const expiry = expiresAt(lastUse);
  const what = m.family === 'agent' ? 'agent token' : m.kind === 'moderation' ? 'moderation token' : 'personal event token';
  const label = m.label.replace(/[\r\n]+/g, ' ').slice(0, TOKEN_LIMITS.labelMax);
  const subject = `fluxdesk: your ${what} "${label}" expires on ${day(expiry)}`;
  const text = [
    `Your fluxdesk ${what} "${label}" (${m.displayPrefix}...) has not been used since ${m.lastUsedAt ? day(m.lastUsedAt) : `it was created on ${day(m.createdAt)}`}.`,
    '',
    `Tokens unused for 12 months expire automatically. This token will expire on ${day(expiry)} (UTC) unless it is used before then.`,
    'After that, requests with it are refused (401 token_revoked) and a new token must be created.',
    '',
    `To keep it, use it once before that date. If you no longer need it, you can let it expire or revoke it: ${m.publicBaseUrl}`,
    '',
    'This mail never contains token values.',
  ].join('\n');
  return { subject, text };
}
