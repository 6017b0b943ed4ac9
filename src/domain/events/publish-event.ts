// Publish one inbound event with a personal (or moderation / claimed) token.
// SPEC: InboundEvent, "Dedup and repeated events", "Delivery external status".
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { hasUnsafeText } from '../validation.js';
import { recordAudit, AUDIT } from '../audit/audit.js';
import { findProjectForMember } from '../projects/projects.repository.js';
import { eventContextIssues, InboundEventSchema, normalizeLegacyEvent, type InboundEvent } from './event-validation.rules.js';
import { FORBIDDEN_EVENT_KEYS, LEGACY_EVENT_KEYS, EVENT_LIMITS } from './event.limits.js';
import { newDelivery } from './events.repository.js';
import { probeNoApproval } from './no-approval-probe.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';
import { utcDay } from '../nudges/nudge.rules.js';
import { evaluateBreakerAfterFailure } from '../tokens/circuit-breaker.js';

export interface PublishResult {
  /**
   * Answer as a first arrival (202): true on a first arrival within the daily limits; false on a
   * repeat of (token, event_id) and on a first arrival over a daily limit, which SPEC Limits
   * answers with 200 and `degraded: true` (`deduped` false tells it from a repeat).
   */
  created: boolean;
  delivery: DeliveryView;
}

export const publishEvent = defineOperation<InboundEvent, PublishResult, InboundTokenPrincipal>({
  name: 'events.publish',
  // Personal tokens may be served from the principal cache: the store writes only if the token,
  // owner and integrator rows are unchanged (else StalePrincipalError, and the call runs again with
  // a fresh lookup).
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'], cachedKinds: ['personal'] },
  budget: 'publish',
  idempotent: true,
  input: InboundEventSchema,
  keyPolicy: { forbidden: FORBIDDEN_EVENT_KEYS, legacy: LEGACY_EVENT_KEYS },
  // `target_email` only serves the 422 probe below; it is never stored.
  prepare: (raw, ctx) => (ctx.channel === 'legacy' ? normalizeLegacyEvent(raw) : withoutKey(raw, 'target_email')),
  onUnauthenticated: (err, raw, d) => probeNoApproval(d, err, raw),
  contextRules: (raw, ctx) =>
    eventContextIssues(raw, {
      channel: ctx.channel,
      tokenKind: ctx.principal.kind,
      allowedEventPrefix: ctx.principal.allowedEventPrefix,
      now: ctx.clock.now(),
      egressAllowHosts: ctx.config.egressAllowHosts,
    }),
  onRejected: (issues, raw, ctx) =>
    recordRejection(
      ctx,
      raw,
      issues.map((i) => `${i.field}:${i.code}`),
    ),
  handler: async (ev, ctx) => {
    const p = ctx.principal;
    const projectId = ev.project_slug ? await resolveProjectOrCountFailure(ev, ctx) : null;
    const delivery = newDelivery(ev, { tokenId: p.tokenId, integratorId: p.integratorId, recipientUserId: p.userId, projectId });
    const now = ctx.clock.now();
    // Delivery, inbox row (or, mode 2, the admin's hold-for-forwarding queue), daily counters,
    // nudge outbox rows and audit, committed together; a cached principal is proven by this write.
    const row = await ctx.ports.events.publish(delivery, {
      now: now.toISOString(),
      day: utcDay(now),
      source: ctx.surface,
      requestId: ctx.requestId,
      hold: p.kind === 'moderation',
      verify: p.unverified,
    });
    // Committed (the store answers after its statement's commit): the owner's open inboxes learn of
    // the new row or the repeat's new count. Fire and forget, never awaited (inbox-feed.ts). A held
    // delivery has no inbox row.
    if (p.kind !== 'moderation') ctx.ports.inboxFeed.changed(row.recipient_user_id, { deliveryIds: [row.id] });
    const inserted = row.inserted === true;
    const degraded = row.degraded === true;
    // pushed: a nudge (push or chat) was queued for a channel the user has; degraded: over a daily limit.
    return {
      created: inserted && !degraded,
      delivery: toDeliveryView(row, { deduped: !inserted, pushed: row.pushed === true, degraded, requestId: ctx.requestId }),
    };
  },
});

/**
 * A rejected event: audited as inbound.event.rejected, then counted by the token's circuit breaker
 * (the failure path only; accepted events never pay for this).
 */
async function recordRejection(ctx: OpContext<InboundTokenPrincipal>, raw: unknown, fields: string[]): Promise<void> {
  // The rejected text itself may be unstorable (NUL, unpaired surrogates): the id is kept only when
  // it is safe, and field paths are kept with such characters escaped.
  const rawId = (raw as { event_id?: unknown })?.event_id;
  const eventId = typeof rawId === 'string' && !hasUnsafeText(rawId) ? rawId.slice(0, EVENT_LIMITS.eventIdMax) : null;
  const em = ctx.em.fork();
  recordAudit(em, ctx, {
    action: AUDIT.eventRejected,
    actorUserId: ctx.principal.userId,
    tokenId: ctx.principal.tokenId,
    targetType: 'event',
    targetId: eventId,
    summary: { fields: fields.slice(0, 20).map((f) => (hasUnsafeText(f) ? JSON.stringify(f).slice(1, -1) : f)) },
  });
  await em.flush();
  await evaluateBreakerAfterFailure(em, ctx, ctx.principal.tokenId);
}

async function resolveProjectOrCountFailure(ev: InboundEvent, ctx: OpContext<InboundTokenPrincipal>): Promise<string> {
  try {
    return await resolveProject(ev.project_slug!, ctx);
  } catch (err) {
    // An unverified principal's failure is decided again after a fresh lookup (runOperation): audit it then.
    if (err instanceof DomainError && err.code === 'cross_project_blocked' && !ctx.principal.unverified) {
      await recordRejection(ctx, ev, ['project_slug:cross_project_blocked']).catch((e) => ctx.log.warn({ err: e }, 'could not audit a rejected event'));
    }
    throw err;
  }
}

function withoutKey(raw: unknown, key: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !(key in raw)) return raw;
  const { [key]: _drop, ...rest } = raw as Record<string, unknown>;
  return rest;
}

/** A single event may name a project the token owner belongs to (else 403 cross_project_blocked). */
async function resolveProject(slug: string, ctx: OpContext<InboundTokenPrincipal>): Promise<string> {
  const project = await findProjectForMember(ctx.em, slug, ctx.principal.userId);
  if (!project || (!project.isMember && !['admin', 'super_admin'].includes(ctx.principal.userRole))) {
    throw new DomainError('forbidden', `project "${slug}" is not open to this token's owner`, { code: 'cross_project_blocked' });
  }
  return project.id;
}
