// GET /api/v1/event-types: event types seen in the last EVENT_LIMITS.eventTypeWindowDays days for the caller's integrator, and
// the service's own `internal-os.` types (visible to every integrator).
// Whose deliveries count (SPEC Authentication 7, "event types of own integrator"):
// - a personal token: its owner's own deliveries only (every self-service token shares the
//   `personal` integrator, so the integrator view would show one user's types to all users);
// - a tools-token or a moderation token: its integrator's deliveries;
// - fluxdeskInternalTypes: deliveries sent through fluxdesk's own integrator (`internal-os`),
//   not any sender's type that merely starts with `internal-os.` (the older endpoint does not
//   gate the namespace, see inbound-protocol.md section 10).
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { forbidden, notFound } from '../errors.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { iso } from '../timestamps.js';
import { FLUXDESK_INTEGRATOR, findIntegratorIdBySlug, findLiveIntegratorBySlug } from '../tokens/integrators.repository.js';
import { eventTypesOfIntegrator, eventTypesOfOwner, internalEventTypesOfIntegrator, type EventTypeAggregate } from './deliveries.repository.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';
import { EVENT_LIMITS } from './event.limits.js';

export const EVENT_TYPE_WINDOW_MS = EVENT_LIMITS.eventTypeWindowDays * 24 * 60 * 60 * 1000;

export const ListEventTypesInput = z.strictObject({ integrator_slug: z.string().min(1).max(TOKEN_LIMITS.integratorSlugMax).optional() });

export const EventTypeRowSchema = z.strictObject({
  eventType: z.string(),
  lastSeenAt: z.iso.datetime().nullable(),
  count: z.number().int().min(0),
});
export type EventTypeRow = z.infer<typeof EventTypeRowSchema>;
export const EventTypesResponseSchema = z.strictObject({
  yourIntegrator: z.strictObject({ slug: z.string(), allowedEventPrefix: z.string() }),
  yourEventTypes: z.array(EventTypeRowSchema),
  fluxdeskInternalTypes: z.array(EventTypeRowSchema),
  requestId: z.string(),
});
export type EventTypesResponse = z.infer<typeof EventTypesResponseSchema>;

const toRow = (r: EventTypeAggregate): EventTypeRow => ({
  eventType: r.event_type,
  lastSeenAt: r.last_seen_at === null ? null : iso(r.last_seen_at),
  count: Number(r.count),
});

/**
 * fluxdesk's own `internal-os.` types. Its integrator id is read first and bound as a value
 * (measured: an id from a sub-select was planned as a sequential scan of deliveries).
 */
async function fluxdeskTypes(em: EntityManager, since: string): Promise<EventTypeAggregate[]> {
  const id = await findIntegratorIdBySlug(em, FLUXDESK_INTEGRATOR.slug);
  if (!id) return [];
  return internalEventTypesOfIntegrator(em, id, since);
}

export const listEventTypes = defineOperation<z.infer<typeof ListEventTypesInput>, EventTypesResponse, InboundTokenPrincipal>({
  name: 'events.list_types',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation', 'tools_claim'] },
  budget: 'request',
  idempotent: false,
  input: ListEventTypesInput,
  handler: async (input, ctx) => {
    const p = ctx.principal;
    const em = ctx.em;
    let integrator = { id: p.integratorId, slug: p.integratorSlug, prefix: p.allowedEventPrefix };
    if (input.integrator_slug !== undefined && input.integrator_slug !== p.integratorSlug) {
      // Another integrator's types: admin tools-token only.
      if (p.kind !== 'tools_claim' || !ADMIN_ROLES.includes(p.userRole))
        throw forbidden('integrator_slug is for admin tools-tokens only', 'forbidden_admin_only');
      const row = await findLiveIntegratorBySlug(em, input.integrator_slug);
      if (!row) throw notFound('integrator');
      integrator = { id: row.id, slug: row.slug, prefix: row.allowed_event_prefix };
    }
    const since = new Date(ctx.clock.now().getTime() - EVENT_TYPE_WINDOW_MS).toISOString();
    const [own, internal] = await Promise.all([
      // A personal token: one user's rows, never the whole `personal` integrator's.
      p.kind === 'personal' ? eventTypesOfOwner(em, p.userId, integrator.id, since) : eventTypesOfIntegrator(em, integrator.id, since),
      fluxdeskTypes(em, since),
    ]);
    return {
      yourIntegrator: { slug: integrator.slug, allowedEventPrefix: integrator.prefix },
      yourEventTypes: own.map(toRow),
      fluxdeskInternalTypes: internal.map(toRow),
      requestId: ctx.requestId,
    };
  },
});
