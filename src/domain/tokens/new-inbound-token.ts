// The one way an inbound token row is born (personal, moderation, claimed personal, tools-token):
// a fresh value of the kind's format, stored only as its hash and display prefix, a new callback
// signing secret, status active; and its `inbound.token.created` audit entry. Callers flush.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { AUDIT, recordAudit } from '../audit/audit.js';
import type { OpContext } from '../context.js';
import { InboundToken } from './tokens.entity.js';
import { newSigningSecret, newTokenValue, sha256Hex, TOKEN_PREFIX } from './token-crypto.js';
import { displayPrefix } from './token-format.rules.js';

export interface NewInboundToken {
  kind: 'personal' | 'moderation' | 'tools_claim';
  ownerUserId: string;
  integratorId: string;
  label: string;
  note?: string | null;
  dailyLimit: number;
  createdAt: Date;
  claimedByToolsTokenId?: string;
  approvalId?: string;
}

/** Persists (on the next flush) a new active token; returns the row and the value (shown once). */
export function createInboundTokenRow(em: EntityManager, spec: NewInboundToken): { row: InboundToken; token: string } {
  // A moderation token has the personal format (SPEC Authentication, token formats).
  const token = newTokenValue(spec.kind === 'tools_claim' ? TOKEN_PREFIX.tools : TOKEN_PREFIX.personal);
  const row = em.create(InboundToken, {
    id: randomUUID(),
    kind: spec.kind,
    tokenHash: sha256Hex(token),
    displayPrefix: displayPrefix(token),
    ownerUserId: spec.ownerUserId,
    integratorId: spec.integratorId,
    label: spec.label,
    note: spec.note ?? null,
    dailyLimit: spec.dailyLimit,
    status: 'active',
    callbackSecret: newSigningSecret(),
    createdAt: spec.createdAt,
    ...(spec.claimedByToolsTokenId ? { claimedByToolsTokenId: spec.claimedByToolsTokenId } : {}),
    ...(spec.approvalId ? { approvalId: spec.approvalId } : {}),
  });
  return { row, token };
}

/**
 * The `inbound.token.created` audit entry of a new row: who acted (`tokenId`: the token they acted
 * with; omitted = the new token itself) and what the caller adds to the summary.
 */
export function auditTokenCreated(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  row: { id: string },
  by: { actorUserId: string; tokenId?: string | null },
  summary: Record<string, unknown>,
): void {
  recordAudit(em, ctx, {
    action: AUDIT.tokenCreated,
    actorUserId: by.actorUserId,
    tokenId: by.tokenId ?? row.id,
    targetType: 'inbound_token',
    targetId: row.id,
    summary,
  });
}
