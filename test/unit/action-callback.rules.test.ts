// Who may still be called back by a webhook action (src/domain/actions/action-callback.rules.ts
// senderInactiveReason): the sending token, its owner and its integrator must all be active.
import { describe, expect, it } from 'vitest';
import { senderInactiveReason, type SenderState } from '../../src/domain/actions/action-callback.rules.js';

const now = new Date('2026-11-28T12:00:00Z');
const active: SenderState = {
  tokenStatus: 'active',
  tokenKind: 'personal',
  tokenLastUsedAt: '2026-11-27T12:00:00Z',
  tokenCreatedAt: '2026-01-01T00:00:00Z',
  ownerStatus: 'active',
  integratorArchivedAt: null,
};

describe('senderInactiveReason', () => {
  it('an active token of an active owner and a live integrator may be called back', () => {
    expect(senderInactiveReason(active, now)).toBeNull();
  });

  it.each([
    ['revoked', { tokenStatus: 'revoked' }, 'token_revoked'],
    ['disabled by its owner', { tokenStatus: 'disabled' }, 'token_disabled'],
    ['marked expired by the daily scan', { tokenStatus: 'auto_expired' }, 'token_expired'],
    ['unused for more than 12 months (not yet marked)', { tokenLastUsedAt: '2025-11-01T00:00:00Z', tokenCreatedAt: '2025-01-01T00:00:00Z' }, 'token_expired'],
    ['never used and issued more than 12 months ago', { tokenLastUsedAt: null, tokenCreatedAt: '2025-11-01T00:00:00Z' }, 'token_expired'],
    ['in a state the rule does not know', { tokenStatus: 'suspended' }, 'token_inactive'],
    ['of an owner no longer active', { ownerStatus: 'offboarded' }, 'owner_inactive'],
    ['of an archived integrator', { integratorArchivedAt: '2026-11-01T00:00:00Z' }, 'integrator_archived'],
  ] as const)('a token %s is refused', (_name, patch, reason) => {
    expect(senderInactiveReason({ ...active, ...patch }, now)).toBe(reason);
  });

  it('tools-tokens do not expire from disuse', () => {
    expect(senderInactiveReason({ ...active, tokenKind: 'tools_claim', tokenLastUsedAt: null, tokenCreatedAt: '2024-01-01T00:00:00Z' }, now)).toBeNull();
  });
});
