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
  /** Default: the call's surface (see callerSource). */
  source?: string;
}

/**
 * The audit `source` of a call: `web` for the web app's own calls (a person signed in with a
 * session cookie; they reach the Connect services like any client), otherwise the surface.
 */
export function callerSource(ctx: Pick<OpContext, 'surface' | 'principal'>): string {
  return ctx.principal.type === 'agent' && ctx.principal.viaSession ? 'web' : ctx.surface;
}

/** Persists one audit row through `em`'s unit of work (a writing operation's: the runner flushes it with the rest). */
export function recordAudit(em: EntityManager, ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>, a: AuditInput): void {
  em.create(AuditEntry, auditRow(ctx, a));
}

/**
 * Writes one audit row at once, in one statement (in `em`'s transaction if it has one): for an
 * operation that opens no transaction because it waits on something else (a webhook receiver, the
 * publish store) and records the outcome afterwards.
 */
export async function insertAudit(em: EntityManager, ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>, a: AuditInput): Promise<void> {
  await em.insert(AuditEntry, auditRow(ctx, a));
}

function auditRow(ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>, a: AuditInput) {
  return {
    id: randomUUID(),
    action: a.action,
    source: a.source ?? ctx.surface,
    actorUserId: a.actorUserId ?? null,
    tokenId: a.tokenId ?? null,
    targetType: a.targetType ?? null,
    targetId: a.targetId ?? null,
    requestId: ctx.requestId,
    summary: a.summary ?? null,
    createdAt: ctx.clock.now(),
  };
}
