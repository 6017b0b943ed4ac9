// Publish one inbound event with a personal (or moderation / claimed) token.
// SPEC: InboundEvent, "Dedup and repeated events", "Delivery external status".
import { defineOperation, type InboundTokenPrincipal, type OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { recordAudit, AUDIT } from '../audit/audit.js';
import { findProjectForMember } from '../projects/projects.repository.js';
import { eventContextIssues, FORBIDDEN_EVENT_KEYS, InboundEventSchema, LEGACY_EVENT_KEYS, normalizeLegacyEvent, type InboundEvent } from './event-validation.rules.js';
import { newDelivery, upsertDeliveries } from './events.repository.js';
import { probeNoApproval } from './no-approval-probe.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';

export interface PublishResult {
  /** true on first arrival (202), false on a repeat of (token, event_id) (200). */
  created: boolean;
  delivery: DeliveryView;
}

export const publishEvent = defineOperation<InboundEvent, PublishResult, InboundTokenPrincipal>({
  name: 'events.publish',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  rateLimited: true,
  idempotent: true,
  input: InboundEventSchema,
  keyPolicy: { forbidden: FORBIDDEN_EVENT_KEYS, legacy: LEGACY_EVENT_KEYS },
  // `target_email` only serves the 422 probe below; it is never stored.
  prepare: (raw, ctx) => (ctx.channel === 'legacy' ? normalizeLegacyEvent(raw) : withoutKey(raw, 'target_email')),
  onUnauthenticated: (err, raw, d) => probeNoApproval(d.em, d.clock, err, raw, d.callerToolsToken),
  contextRules: (raw, ctx) =>
    eventContextIssues(raw, {
      channel: ctx.channel,
      tokenKind: ctx.principal.kind,
      allowedEventPrefix: ctx.principal.allowedEventPrefix,
      now: ctx.clock.now(),
    }),
  onRejected: async (issues, raw, ctx) => {
    const eventId = typeof (raw as { event_id?: unknown })?.event_id === 'string' ? String((raw as { event_id: string }).event_id).slice(0, 120) : null;
    const em = ctx.em.fork();
    recordAudit(em, ctx, {
      action: AUDIT.eventRejected,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'event',
      targetId: eventId,
      summary: { fields: issues.map((i) => `${i.field}:${i.code}`).slice(0, 20) },
    });
    await em.flush();
  },
  handler: async (ev, ctx) => {
    const p = ctx.principal;
    const projectId = ev.project_slug ? await resolveProject(ev.project_slug, ctx) : null;
    const delivery = newDelivery(ev, { tokenId: p.tokenId, integratorId: p.integratorId, recipientUserId: p.userId, projectId });
    const [row] = await upsertDeliveries(ctx.em, [delivery], { now: ctx.clock.now().toISOString(), source: ctx.surface, requestId: ctx.requestId });
    const created = row!.inserted === true;
    // Push and chat nudges are not sent by this version: `pushed` is always false (truthful).
    return { created, delivery: toDeliveryView(row!, { deduped: !created, pushed: false, requestId: ctx.requestId }) };
  },
});

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

