import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, validationFailed } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { insertItemUnlessSlugTaken } from './catalog.repository.js';
import {
  CatalogItemCreateRequestSchema,
  toCatalogItemView,
  type CatalogActor,
  type CatalogItemCreateRequest,
  type CatalogItemEnvelope,
  type CatalogItemView,
  type CoreContext,
} from './catalog-items.schemas.js';
import { actorOf, assertMayLink, AUDIT_ACTIONS, audit, AUTH, checkReferences } from './catalog-items.shared.js';

const slugTaken = (slug: string) =>
  new DomainError('conflict', `catalog slug "${slug}" is already taken (archived rows keep their slug)`, { code: 'slug_taken', extra: { slug } });

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string })?.code === '23505' || (err as { name?: string })?.name === 'UniqueConstraintViolationException';

/** Creates a row; 409 `slug_taken` when the slug exists (archived rows keep theirs). */
export async function createItem(ctx: CoreContext, actor: CatalogActor, input: CatalogItemCreateRequest): Promise<CatalogItemView> {
  const em = ctx.em;
  try {
    const { issues, link } = await checkReferences(em, input);
    if (issues.length > 0) throw validationFailed(issues);
    if (link) assertMayLink(actor, undefined, link);
    const integratorId = link?.integratorId ?? null;
    const now = ctx.clock.now().toISOString();
    // ON CONFLICT: a concurrent create of the same slug answers 409, not a 500.
    const row = await insertItemUnlessSlugTaken(em, {
      slug: input.slug,
      name: input.name,
      type: input.type,
      description: input.description ?? null,
      category: input.category ?? null,
      url: input.url ?? null,
      applicationGuide: input.application_guide ?? null,
      useCases: input.use_cases ?? [],
      isPinned: input.is_pinned,
      approvalRequired: input.approval_required,
      displayOrder: input.display_order ?? 0,
      contactUserId: input.contact_user_id ?? null,
      linkedToolsTokenId: input.linked_tools_token_id ?? null,
      integratorId,
      now,
    });
    if (!row) throw slugTaken(input.slug);
    audit(em, ctx, actor, AUDIT_ACTIONS.created, row, { type: row.type });
    return toCatalogItemView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(input.slug);
    throw err;
  }
}

export const createCatalogItem = defineOperation<CatalogItemCreateRequest, CatalogItemEnvelope, InboundTokenPrincipal>({
  name: 'catalog.item.create',
  auth: AUTH,
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: CatalogItemCreateRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return { ok: true as const, item: await createItem(ctx, actorOf(ctx.principal), input), requestId: ctx.requestId };
  },
});
