// Moderation tokens (SPEC mode 2): personal-format tokens (`svc-in-pers-`) flagged as moderation,
// created by and owned by an admin. Their events land only in the owner's hold-for-forwarding
// queue. Like a tools-token, each gets its own integrator (slug from the label, made unique;
// event prefix `<slug>.` on /api/v1) and a linked catalog row (`<slug>.inbound-token`, category
// inbound-integration). The value is returned once and stored only as a hash.
// Admins: agent tool `issue_admin_moderation_token` (admin:tokens). Operators: CLI
// `fluxdesk moderation-token create --owner E --label L [--daily-limit N]`.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { createIntegratorCatalogRow } from '../catalog/catalog.repository.js';
import { slugifyLabel, uniqueIntegratorSlug } from '../agent/issue-admin-tools-claim-token.js';
import { requireAdminUser } from '../tokens/admin-token-operations.js';
import { ensureIntegrator, lockIntegratorSlugBase } from '../tokens/integrators.repository.js';
import { ADMIN_ROLES, User } from '../users/users.entity.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { auditTokenCreated, createInboundTokenRow } from '../tokens/new-inbound-token.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';
import { MODERATION_LIMITS } from './moderation.limits.js';

const dailyLimit = z.number().int().min(1).max(TOKEN_LIMITS.dailyLimitMax).default(MODERATION_LIMITS.tokenDailyLimitDefault);

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

interface ModerationTokenCreated {
  tokenId: string;
  token: string;
  catalogRowId: string;
  catalogSlug: string;
  integratorSlug: string;
  dailyLimit: number;
}

async function createModerationTokenInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  owner: { id: string; role: string; status: string },
  spec: { label: string; note: string | null; dailyLimit: number },
  audit: { actorUserId: string; tokenId?: string | null; summary?: Record<string, unknown> },
): Promise<ModerationTokenCreated> {
  if (!ADMIN_ROLES.includes(owner.role)) throw new DomainError('forbidden', 'moderation tokens are owned by admins', { code: 'forbidden_admin_only' });
  if (owner.status !== 'active') throw new DomainError('forbidden', 'the owner is not active', { code: 'user_inactive' });
  const now = ctx.clock.now();
  const base = slugifyLabel(spec.label);
  // Same lock as issue_admin_tools_claim_token: concurrent issues with one label pick distinct slugs.
  await lockIntegratorSlugBase(em, base);
  const slug = await uniqueIntegratorSlug(em, base);
  const integratorId = await ensureIntegrator(
    em,
    { slug, name: spec.label, description: 'Moderation token (mode 2): events are held for an admin to forward.' },
    now,
  );
  const { row, token } = createInboundTokenRow(em, {
    kind: 'moderation',
    ownerUserId: owner.id,
    integratorId,
    label: spec.label,
    note: spec.note,
    dailyLimit: spec.dailyLimit,
    createdAt: now,
  });
  // Nobody applies for a moderation row: the admin owns the only token.
  const item = createIntegratorCatalogRow(em, {
    integratorSlug: slug,
    integratorId,
    name: `${spec.label} (moderated inbound events)`,
    description: 'Moderation token: events are held in the queue of its admin owner, who forwards them to the right person.',
    approvalRequired: false,
    contactUserId: owner.id,
    linkedToolsTokenId: null,
    now,
  });
  auditTokenCreated(em, ctx, row, audit, { kind: 'moderation', integrator: slug, label: spec.label, daily_limit: spec.dailyLimit, ...audit.summary });
  return { tokenId: row.id, token, catalogRowId: item.id, catalogSlug: item.slug!, integratorSlug: slug, dailyLimit: spec.dailyLimit };
}

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

export const CreateModerationTokenInput = z.strictObject({
  owner: z.email().max(USER_LIMITS.emailMax),
  label: z.string().trim().min(1).max(TOKEN_LIMITS.labelMax),
  note: z.string().max(TOKEN_LIMITS.noteMax).optional(),
  daily_limit: dailyLimit,
});

export const createModerationToken = defineOperation<z.infer<typeof CreateModerationTokenInput>, { tokenId: string; token: string }>({
  name: 'moderation.create_token',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateModerationTokenInput,
  handler: async (input, ctx) => {
    const owner = await requireUserByEmail(ctx.em, input.owner);
    const created = await createModerationTokenInTransaction(
      ctx.em,
      ctx,
      owner,
      { label: input.label, note: input.note ?? null, dailyLimit: input.daily_limit },
      { actorUserId: owner.id },
    );
    return { tokenId: created.tokenId, token: created.token };
  },
});
