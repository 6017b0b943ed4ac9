// Resolve: terminal stamp, no re-push, no delete. Repeating it keeps the first stamp.
import { z } from 'zod';
import { defineOperation, type InboundTokenPrincipal } from '../context.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';
import { listSupplements, type DeliveryRow } from './events.repository.js';
import { loadOwnDelivery } from './sender-access.js';

export const ResolveDeliveryInput = z.strictObject({
  delivery_id: z.uuid({ error: 'must be a UUID' }),
  resolution_note: z.string().max(500).optional(),
});

export const resolveDelivery = defineOperation<z.infer<typeof ResolveDeliveryInput>, DeliveryView, InboundTokenPrincipal>({
  name: 'events.resolve',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  rateLimited: 'requests',
  idempotent: true,
  input: ResolveDeliveryInput,
  handler: async ({ delivery_id, resolution_note }, ctx) =>
    ctx.em.transactional(async (em) => {
      await loadOwnDelivery(em, ctx.principal, delivery_id);
      const rows = (await em.getConnection().execute(
        `update deliveries set
           resolved_at = coalesce(resolved_at, ?::timestamptz),
           resolution_note = case when resolved_at is null then ? else resolution_note end,
           external_status = 'resolved'
         where id = ?
         returning id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title,
           summary, markdown_body, external_url, external_status, locale, recipient_hint, occurred_at, created_at,
           resolved_at, resolution_note, fire_count`,
        [ctx.clock.now().toISOString(), resolution_note ?? null, delivery_id],
        'all',
        em.getTransactionContext(),
      )) as DeliveryRow[];
      const supplements = await listSupplements(em, delivery_id);
      return toDeliveryView(rows[0]!, { deduped: false, pushed: false, requestId: ctx.requestId, supplements });
    }),
});
