// `issue_admin_moderation_token` (admin, scope admin:tokens): a moderation token owned by the
// calling admin. The value is returned once and stored only as a hash.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { User } from '../users/users.entity.js';
import { createModerationTokenInTransaction, dailyLimit } from './moderation-tokens.shared.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

export const IssueAdminModerationTokenInput = z.strictObject({
  label: z.string().trim().min(1).max(TOKEN_LIMITS.labelMax),
  source_note: z.string().max(TOKEN_LIMITS.noteMax).optional(),
  daily_limit: dailyLimit,
});

export const IssueAdminModerationTokenOutput = z.object({
  token_id: z.uuid(),
  token_value: z.string(),
  catalog_row_id: z.uuid(),
  catalog_slug: z.string(),
  daily_limit: z.number().int(),
  endpoint_url: z.string(),
  allowed_event_prefix: z.string(),
});
export type IssueAdminModerationTokenResult = z.infer<typeof IssueAdminModerationTokenOutput>;

export const issueAdminModerationToken = defineOperation<z.infer<typeof IssueAdminModerationTokenInput>, IssueAdminModerationTokenResult, AgentPrincipal>({
  name: 'moderation.issue_admin_moderation_token',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:tokens'],
  // A token value is never stored anywhere, not even in an idempotency cache.
  idempotent: false,
  writes: true,
  input: IssueAdminModerationTokenInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const owner = await em.findOne(User, { id: ctx.principal.userId });
    if (!owner) throw notFound('user');
    const created = await createModerationTokenInTransaction(
      em,
      ctx,
      owner,
      { label: input.label, note: input.source_note ?? null, dailyLimit: input.daily_limit },
      { actorUserId: ctx.principal.userId, tokenId: ctx.principal.tokenId, summary: { tool: 'issue_admin_moderation_token' } },
    );
    return {
      token_id: created.tokenId,
      token_value: created.token,
      catalog_row_id: created.catalogRowId,
      catalog_slug: created.catalogSlug,
      daily_limit: created.dailyLimit,
      endpoint_url: `${ctx.config.publicBaseUrl}/api/v1/events`,
      allowed_event_prefix: `${created.integratorSlug}.`,
    };
  },
});
