// Moderation tokens (SPEC mode 2): personal-format tokens (`svc-in-pers-`) flagged as moderation,
// owned by an admin, whose events land only in the owner's hold-for-forwarding queue. Like a
// tools-token, each gets its own integrator (slug from the label, made unique) and a linked catalog
// row. Issued by admins (issue-admin-moderation-token.ts) and operators (create-moderation-token.ts).
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { createIntegratorCatalogRow } from '../catalog/catalog.repository.js';
import { slugifyLabel, uniqueIntegratorSlug } from '../tokens/issue-admin-tools-claim-token.js';
import { ensureIntegrator, lockIntegratorSlugBase } from '../tokens/integrators.repository.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { auditTokenCreated, createInboundTokenRow } from '../tokens/new-inbound-token.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';
import { MODERATION_LIMITS } from './moderation.limits.js';

export const dailyLimit = z.number().int().min(1).max(TOKEN_LIMITS.dailyLimitMax).default(MODERATION_LIMITS.tokenDailyLimitDefault);

export interface ModerationTokenCreated {
  tokenId: string;
  token: string;
  catalogRowId: string;
  catalogSlug: string;
  integratorSlug: string;
  dailyLimit: number;
}

export async function createModerationTokenInTransaction(
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
