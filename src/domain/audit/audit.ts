// Audit rows. The summary never contains token values or event bodies.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import { AuditEntry } from './audit.entity.js';

export const AUDIT = {
  tokenCreated: 'inbound.token.created',
  tokenRotated: 'inbound.token.rotated',
  tokenRevoked: 'inbound.token.revoked',
  tokenRevokedByAdmin: 'inbound.token.revoked_by_admin',
  tokenAutoExpired: 'inbound.token.auto_expired',
  eventReceived: 'inbound.event.received',
  eventDeduped: 'inbound.event.deduped',
  eventRejected: 'inbound.event.rejected',
} as const;

export interface AuditInput {
  action: string;
  actorUserId?: string | null;
  tokenId?: string | null;
  targetType?: string | null;
  targetId?: string | null;
  summary?: Record<string, unknown> | null;
}

/** Persists one audit row through `em` (inside the caller's transaction when there is one). */
export function recordAudit(em: EntityManager, ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>, a: AuditInput): void {
  em.create(AuditEntry, {
    id: randomUUID(),
    action: a.action,
    source: ctx.surface,
    actorUserId: a.actorUserId ?? null,
    tokenId: a.tokenId ?? null,
    targetType: a.targetType ?? null,
    targetId: a.targetId ?? null,
    requestId: ctx.requestId,
    summary: a.summary ?? null,
    createdAt: ctx.clock.now(),
  });
}
