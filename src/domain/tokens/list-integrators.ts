// GET /api/v1/integrators: the non-archived registry rows (admin tools-token).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { listLiveIntegrators } from './integrators.repository.js';
import { requireAdminToolsToken } from './tools-access.rules.js';

export const IntegratorViewSchema = z.strictObject({
  id: z.uuid(),
  slug: z.string(),
  name: z.string(),
  allowedEventPrefix: z.string(),
  createdAt: z.iso.datetime(),
  homepageUrl: z.string().nullable(),
  description: z.string().nullable(),
});
export const IntegratorsResponseSchema = z.strictObject({ items: z.array(IntegratorViewSchema), totalCount: z.number().int().min(0), requestId: z.string() });
type IntegratorsResponse = z.infer<typeof IntegratorsResponseSchema>;

export const listIntegrators = defineOperation<Record<string, never>, IntegratorsResponse, InboundTokenPrincipal>({
  name: 'integrators.list',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const rows = await listLiveIntegrators(ctx.em);
    const items = rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      name: r.name,
      allowedEventPrefix: r.allowed_event_prefix,
      createdAt: iso(r.created_at),
      homepageUrl: r.homepage_url,
      description: r.description,
    }));
    return { items, totalCount: items.length, requestId: ctx.requestId };
  },
});
