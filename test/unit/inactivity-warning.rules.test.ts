// Pure rules of token inactivity expiry and the warning mail (SPEC "Personal token lifecycle",
// Limits "Token inactivity expiry 12 months").
import { describe, expect, it } from 'vitest';
import {
  expiresAt,
  inactivityCutoffs,
  INACTIVITY_WARNING_LEAD_MS,
  isInactive,
  renderInactivityWarning,
  warningDedupeKey,
} from '../../src/domain/tokens/inactivity-warning.rules.js';
import { INACTIVITY_EXPIRY_MS } from '../../src/domain/tokens/token-lifecycle.rules.js';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2027-06-15T08:00:00.000Z');

describe('inactivity cutoffs', () => {
  it('12 months is 365 days; the warning comes 30 days earlier', () => {
    expect(INACTIVITY_EXPIRY_MS).toBe(365 * DAY);
    expect(INACTIVITY_WARNING_LEAD_MS).toBe(30 * DAY);
    const c = inactivityCutoffs(now);
    expect(c.expireAtOrBefore.toISOString()).toBe('2026-06-15T08:00:00.000Z');
    expect(c.warnAtOrBefore.toISOString()).toBe('2026-07-15T08:00:00.000Z');
  });

  it('a token is inactive from exactly 12 months after its last use', () => {
    const lastUse = new Date(now.getTime() - INACTIVITY_EXPIRY_MS);
    expect(isInactive(lastUse, now)).toBe(true);
    expect(isInactive(new Date(lastUse.getTime() + 1), now)).toBe(false);
    expect(expiresAt(lastUse).toISOString()).toBe(now.toISOString());
  });

  it('the dedupe key names the family, the token and the cycle (its last use)', () => {
    const id = '3f0c6f4e-2a55-4a8e-9d47-1d2f5c6b7a80';
    const a = warningDedupeKey('inbound', id, new Date('2026-01-01T00:00:00Z'));
    expect(a).toBe(`token-inactivity-warning:inbound:${id}:1767225600000`);
    expect(warningDedupeKey('inbound', id, new Date('2026-01-01T00:00:00Z'))).toBe(a);
    expect(warningDedupeKey('inbound', id, new Date('2026-01-01T00:00:01Z'))).not.toBe(a);
    expect(warningDedupeKey('agent', id, new Date('2026-01-01T00:00:00Z'))).not.toBe(a);
    expect(a.length).toBeLessThanOrEqual(200);
  });
});

describe('warning mail', () => {
  const base = {
    family: 'inbound' as const,
    kind: 'personal',
    label: 'CI alerts',
    displayPrefix: 'svc-in-pers-AbCd',
    publicBaseUrl: 'https://fluxdesk.example.com',
  };

  it('names the token by label and display prefix, the last use and the expiry date', () => {
    const m = renderInactivityWarning({ ...base, lastUsedAt: new Date('2026-01-10T12:00:00Z'), createdAt: new Date('2025-03-01T00:00:00Z') });
    expect(m.subject).toBe('fluxdesk: your personal event token "CI alerts" expires on 2027-01-10');
    expect(m.text).toContain('"CI alerts" (svc-in-pers-AbCd...) has not been used since 2026-01-10.');
    expect(m.text).toContain('will expire on 2027-01-10 (UTC)');
    expect(m.text).toContain('401 token_revoked');
    expect(m.text).toContain('https://fluxdesk.example.com');
  });

  it('a never-used token counts from its creation; agent and moderation tokens say what they are', () => {
    const never = renderInactivityWarning({ ...base, lastUsedAt: null, createdAt: new Date('2026-02-01T00:00:00Z') });
    expect(never.text).toContain('has not been used since it was created on 2026-02-01.');
    expect(never.subject).toContain('expires on 2027-02-01');
    expect(renderInactivityWarning({ ...base, family: 'agent', kind: 'agent', lastUsedAt: null, createdAt: now }).subject).toContain('your agent token');
    expect(renderInactivityWarning({ ...base, kind: 'moderation', lastUsedAt: null, createdAt: now }).subject).toContain('your moderation token');
  });

  it('a label cannot inject header lines', () => {
    const m = renderInactivityWarning({ ...base, label: 'x\r\nBcc: victim@example.com', lastUsedAt: null, createdAt: now });
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.subject).toContain('"x Bcc: victim@example.com"');
  });
});
