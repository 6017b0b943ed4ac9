// Tools-token (`svc-tools-`, mode 3): admin-owned integrator identity. Creating one also creates
// the integrator (prefix `<slug>.`) and its catalog row when absent; personal tokens claimed with
// it belong to that integrator. Operators use the CLI (`tokens.create_tools`); admins use the agent
// tool `issue_admin_tools_claim_token`. Both run `createToolsTokenInTransaction`.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { createIntegratorCatalogRow, findItemForIntegrator, linkItemToToolsToken } from '../catalog/catalog.repository.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { ensureIntegrator } from './integrators.repository.js';
import { auditTokenCreated, createInboundTokenRow } from './new-inbound-token.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { INTEGRATOR_SLUG, TOKEN_LIMITS } from './tokens.limits.js';
import { CATALOG_LIMITS } from '../catalog/catalog.limits.js';

/** A tools-token's daily budget (the organisation cap). */
export const TOOLS_TOKEN_DAILY_LIMIT = TOKEN_LIMITS.dailyLimitMax;

export const CreateToolsTokenInput = z.strictObject({
  owner: z.email().max(USER_LIMITS.emailMax),
  integrator: z.string().regex(INTEGRATOR_SLUG, { error: `must match ${INTEGRATOR_SLUG.source}` }),
  name: z.string().min(1).max(TOKEN_LIMITS.labelMax),
  integrator_name: z.string().min(1).max(TOKEN_LIMITS.integratorNameMax).optional(),
  catalog_display_name: z.string().min(1).max(CATALOG_LIMITS.nameMax).optional(),
  catalog_description: z.string().max(TOKEN_LIMITS.catalogDescriptionMax).optional(),
});

export interface ToolsTokenCreated {
  tokenId: string;
  token: string;
  integratorSlug: string;
  catalogSlug: string;
  catalogRowId: string;
}

export interface ToolsTokenSpec {
  integrator: string;
  /** The token's label. */
  name: string;
  integratorName?: string;
  catalogDisplayName?: string;
  catalogDescription?: string;
  /** Free-text note kept on the token row (never a secret). */
  note?: string | null;
}

/**
 * Mints a tools-token for an admin `owner` inside the caller's transaction (the value is returned
 * once and stored only as a hash). `audit` names who acted and adds summary members (e.g. the tool).
 */
export async function createToolsTokenInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  owner: { id: string; role: string },
  spec: ToolsTokenSpec,
  audit: { actorUserId: string; tokenId?: string | null; summary?: Record<string, unknown> } = { actorUserId: owner.id },
): Promise<ToolsTokenCreated> {
  if (!ADMIN_ROLES.includes(owner.role)) throw new DomainError('forbidden', 'tools-tokens are owned by admins', { code: 'forbidden_admin_only' });
  const now = ctx.clock.now();
  const integratorId = await ensureIntegrator(em, { slug: spec.integrator, name: spec.integratorName ?? spec.integrator }, now);
  const { row, token } = createInboundTokenRow(em, {
    kind: 'tools_claim',
    ownerUserId: owner.id,
    integratorId,
    label: spec.name,
    note: spec.note,
    dailyLimit: TOOLS_TOKEN_DAILY_LIMIT,
    createdAt: now,
  });
  // Scalar foreign keys: the token row must exist before a catalog row links it.
  await em.flush();
  const item = await findItemForIntegrator(em, integratorId);
  let catalogSlug = item?.slug ?? null;
  let catalogRowId = item?.id ?? null;
  if (!item) {
    const created = createIntegratorCatalogRow(em, {
      integratorSlug: spec.integrator,
      integratorId,
      name: spec.catalogDisplayName ?? `${spec.integratorName ?? spec.integrator} inbound events`,
      description: spec.catalogDescription ?? `Personal inbound tokens claimed by the ${spec.integrator} integrator.`,
      approvalRequired: true,
      contactUserId: owner.id,
      linkedToolsTokenId: row.id,
      now,
    });
    catalogSlug = created.slug ?? null;
    catalogRowId = created.id;
  } else if (item.linked_tools_token_id === null) {
    await linkItemToToolsToken(em, item.id, row.id);
  }
  auditTokenCreated(em, ctx, row, audit, { kind: 'tools_claim', integrator: spec.integrator, ...audit.summary });
  return { tokenId: row.id, token, integratorSlug: spec.integrator, catalogSlug: catalogSlug ?? '', catalogRowId: catalogRowId! };
}

export const createToolsToken = defineOperation<z.infer<typeof CreateToolsTokenInput>, ToolsTokenCreated>({
  name: 'tokens.create_tools',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateToolsTokenInput,
  handler: async (input, ctx) => {
    const owner = await requireUserByEmail(ctx.em, input.owner);
    return createToolsTokenInTransaction(ctx.em, ctx, owner, {
      integrator: input.integrator,
      name: input.name,
      integratorName: input.integrator_name,
      catalogDisplayName: input.catalog_display_name,
      catalogDescription: input.catalog_description,
    });
  },
});
