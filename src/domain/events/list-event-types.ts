// GET /api/v1/event-types: event types seen in the last 90 days for the caller's integrator, and
// the service's own `internal-os.` types (visible to every integrator).
// Whose deliveries count (SPEC Authentication 7, "event types of own integrator"):
// - a personal token: its owner's own deliveries only (every self-service token shares the
//   `personal` integrator, so the integrator view would show one user's types to all users);
// - a tools-token or a moderation token: its integrator's deliveries;
// - fluxdeskInternalTypes: deliveries sent through fluxdesk's own integrator (`internal-os`),
//   not any sender's type that merely starts with `internal-os.` (the older endpoint does not
//   gate the namespace, see inbound-protocol.md section 10).
import { z } from 'zod';
import { defineOperation, type InboundTokenPrincipal, type OpContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { iso } from '../timestamps.js';
import { FLUXDESK_INTEGRATOR } from '../tokens/integrators.repository.js';

export const EVENT_TYPE_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;

export const ListEventTypesInput = z.strictObject({ integrator_slug: z.string().min(1).max(80).optional() });

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

type Agg = { event_type: string; last_seen_at: Date | string | null; count: string | number };
const toRow = (r: Agg): EventTypeRow => ({ eventType: r.event_type, lastSeenAt: r.last_seen_at === null ? null : iso(r.last_seen_at), count: Number(r.count) });

type Conn = ReturnType<OpContext['em']['getConnection']>;

/**
 * fluxdesk's own `internal-os.` types. Its integrator id is read first and bound as a value: the
 * plan is then a range of the (integrator_id, created_at) index (measured: an id from a sub-select
 * was planned as a sequential scan of deliveries, and `like 'internal-os.%'` alone uses no index
 * under a non-C collation).
 */
async function fluxdeskTypes(conn: Conn, since: string): Promise<Agg[]> {
  const rows = (await conn.execute(`select id from integrators where slug = ?`, [FLUXDESK_INTEGRATOR.slug])) as { id: string }[];
  if (!rows[0]) return [];
  return (await conn.execute(
    `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
      where integrator_id = ? and event_type like 'internal-os.%' and created_at > ?::timestamptz group by event_type order by event_type`,
    [rows[0].id, since],
  )) as Agg[];
}

export const listEventTypes = defineOperation<z.infer<typeof ListEventTypesInput>, EventTypesResponse, InboundTokenPrincipal>({
  name: 'events.list_types',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation', 'tools_claim'] },
  rateLimited: 'requests',
  idempotent: false,
  input: ListEventTypesInput,
  handler: async (input, ctx) => {
    const p = ctx.principal;
    const conn = ctx.em.getConnection();
    let integrator = { id: p.integratorId, slug: p.integratorSlug, prefix: p.allowedEventPrefix };
    if (input.integrator_slug !== undefined && input.integrator_slug !== p.integratorSlug) {
      // Another integrator's types: admin tools-token only.
      if (p.kind !== 'tools_claim' || !ADMIN_ROLES.includes(p.userRole)) throw forbidden('integrator_slug is for admin tools-tokens only', 'forbidden_admin_only');
      const rows = (await conn.execute(`select id, slug, allowed_event_prefix from integrators where slug = ? and archived_at is null`, [input.integrator_slug])) as { id: string; slug: string; allowed_event_prefix: string }[];
      if (!rows[0]) throw notFound('integrator');
      integrator = { id: rows[0].id, slug: rows[0].slug, prefix: rows[0].allowed_event_prefix };
    }
    const since = new Date(ctx.clock.now().getTime() - EVENT_TYPE_WINDOW_MS).toISOString();
    const [own, internal] = await Promise.all([
      p.kind === 'personal'
        ? // The owner's tokens of this integrator (inbound_tokens_owner_user_id_index), then their
          // deliveries through the (token_id, event_id) unique index: one user's rows, never the
          // whole `personal` integrator's.
          (conn.execute(
            `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
              where token_id = any(array(select t.id from inbound_tokens t where t.owner_user_id = ? and t.integrator_id = ?))
                and created_at > ?::timestamptz group by event_type order by event_type`,
            [p.userId, integrator.id, since],
          ) as Promise<Agg[]>)
        : (conn.execute(
            `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
              where integrator_id = ? and created_at > ?::timestamptz group by event_type order by event_type`,
            [integrator.id, since],
          ) as Promise<Agg[]>),
      fluxdeskTypes(conn, since),
    ]);
    return {
      yourIntegrator: { slug: integrator.slug, allowedEventPrefix: integrator.prefix },
      yourEventTypes: own.map(toRow),
      fluxdeskInternalTypes: internal.map(toRow),
      requestId: ctx.requestId,
    };
  },
});
