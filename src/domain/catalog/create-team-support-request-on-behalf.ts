// `create_team_support_request_on_behalf` (SPEC C; admin, scope admin:on_behalf_of only): files a
// pending request for another user through the apply core. A live request the pair already has is
// returned as it is (`idempotent: true`).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { applyInTransaction } from './apply-for-catalog-item.js';
import { requireLiveItem } from './catalog-approvals.shared.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { catalogRefFields, catalogRefOf, exactlyOne } from './catalog-ref.rules.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export const CreateTeamSupportRequestOnBehalfInput = z
  .strictObject({
    ...catalogRefFields,
    email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
    note: z.string().max(CATALOG_LIMITS.noteMax).optional(),
  })
  .superRefine(exactlyOne('catalog_slug', 'catalog_id'));

export const CreateTeamSupportRequestOnBehalfOutput = z.object({ request_id: z.uuid(), status: z.string(), idempotent: z.boolean() });
export type CreateTeamSupportRequestOnBehalfResult = z.infer<typeof CreateTeamSupportRequestOnBehalfOutput>;

export const createTeamSupportRequestOnBehalf = defineOperation<
  z.infer<typeof CreateTeamSupportRequestOnBehalfInput>,
  CreateTeamSupportRequestOnBehalfResult,
  AgentPrincipal
>({
  name: 'agent.create_team_support_request_on_behalf',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:on_behalf_of'],
  idempotent: true,
  writes: true,
  input: CreateTeamSupportRequestOnBehalfInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const item = await requireLiveItem(ctx.em, catalogRefOf(input));
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await applyInTransaction(ctx.em, ctx, item, user, { note: input.note, createdByUserId: ctx.principal.userId });
    recordToolAudit(ctx.em, ctx, {
      tool: 'create_team_support_request_on_behalf',
      action: 'catalog.request.filed_on_behalf',
      targetType: 'catalog_request',
      targetId: r.requestId,
      summary: { catalog_item_id: item.id, catalog_slug: item.slug, user_id: user.id, status: r.status, idempotent: !r.created },
    });
    return { request_id: r.requestId, status: r.status, idempotent: !r.created };
  },
});
