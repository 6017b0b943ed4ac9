// `issue_admin_tools_claim_token` (SPEC C write tools; admin, scope admin:tokens): a tools-token
// owned by the caller, for a new integrator whose slug is derived from `label` (slugified, made
// unique), with its linked catalog row. The value is returned once and stored only as a hash.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { integratorCatalogSlug } from '../catalog/catalog.rules.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { createToolsTokenInTransaction, TOOLS_TOKEN_DAILY_LIMIT } from './create-tools-token.js';
import { findTakenIntegratorSlugs, lockIntegratorSlugBase, RESERVED_INTEGRATOR_SLUGS } from './integrators.repository.js';
import { User } from '../users/users.entity.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';
import { CATALOG_LIMITS } from '../catalog/catalog.limits.js';

export const IssueAdminToolsClaimTokenInput = z.strictObject({
  label: z.string().trim().min(1).max(TOKEN_LIMITS.labelMax),
  source_note: z.string().max(TOKEN_LIMITS.noteMax).optional(),
  catalog_display_name: z.string().trim().min(1).max(CATALOG_LIMITS.nameMax).optional(),
  catalog_description: z.string().max(TOKEN_LIMITS.catalogDescriptionMax).optional(),
});

export const IssueAdminToolsClaimTokenOutput = z.object({
  token_id: z.uuid(),
  token_value: z.string(),
  catalog_row_id: z.uuid(),
  catalog_slug: z.string(),
  daily_limit: z.number().int(),
  endpoint_url: z.string(),
  integrator_slug: z.string(),
  allowed_event_prefix: z.string(),
});
export type IssueAdminToolsClaimTokenResult = z.infer<typeof IssueAdminToolsClaimTokenOutput>;

const SLUG_BASE_MAX = 50;

/** `Billing Alerts (EU)` -> `billing-alerts-eu`; only [a-z0-9-], starting with a letter or digit. */
export function slugifyLabel(label: string): string {
  const s = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, SLUG_BASE_MAX)
    .replace(/-+$/, '');
  return s || 'integrator';
}

/**
 * The first of `base`, `base-2`, `base-3`, ... that names no integrator, is not reserved
 * (`personal`, `internal-os`) and whose catalog slug is free. Callers hold the advisory lock on
 * `base`, so concurrent issues with one label do not pick the same slug.
 */
export async function uniqueIntegratorSlug(em: EntityManager, base: string): Promise<string> {
  const taken = new Set([...(await findTakenIntegratorSlugs(em, base, integratorCatalogSlug(base))), ...RESERVED_INTEGRATOR_SLUGS]);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export const issueAdminToolsClaimToken = defineOperation<z.infer<typeof IssueAdminToolsClaimTokenInput>, IssueAdminToolsClaimTokenResult, AgentPrincipal>({
  name: 'agent.issue_admin_tools_claim_token',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:tokens'],
  // A token value is never stored anywhere, not even in an idempotency cache.
  idempotent: false,
  writes: true,
  input: IssueAdminToolsClaimTokenInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const owner = await em.findOne(User, { id: ctx.principal.userId });
    if (!owner) throw notFound('user');
    const base = slugifyLabel(input.label);
    await lockIntegratorSlugBase(em, base);
    const integrator = await uniqueIntegratorSlug(em, base);
    const created = await createToolsTokenInTransaction(
      em,
      ctx,
      owner,
      {
        integrator,
        name: input.label,
        integratorName: input.label,
        catalogDisplayName: input.catalog_display_name,
        catalogDescription: input.catalog_description,
        note: input.source_note ?? null,
      },
      { actorUserId: ctx.principal.userId, tokenId: ctx.principal.tokenId, summary: { tool: 'issue_admin_tools_claim_token', label: input.label } },
    );
    return {
      token_id: created.tokenId,
      token_value: created.token,
      catalog_row_id: created.catalogRowId,
      catalog_slug: created.catalogSlug,
      daily_limit: TOOLS_TOKEN_DAILY_LIMIT,
      endpoint_url: `${ctx.config.publicBaseUrl}/api/v1/tokens/claim`,
      integrator_slug: created.integratorSlug,
      allowed_event_prefix: `${created.integratorSlug}.`,
    };
  },
});
