import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { validationFailed } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { ITEM_UPDATABLE_COLUMNS, lockItem, updateItemRow } from './catalog.repository.js';
import {
  toCatalogItemView,
  UpdateCatalogItemInput,
  type CatalogActor,
  type CatalogItemEnvelope,
  type CatalogItemPatch,
  type CatalogItemView,
  type CoreContext,
  type ItemRef,
} from './catalog-items.schemas.js';
import { actorOf, assertMayLink, assertMayManage, AUDIT_ACTIONS, audit, AUTH, checkReferences, missing } from './catalog-items.shared.js';

/** Patches a live row (an archived one is not found). */
export async function updateItem(ctx: CoreContext, actor: CatalogActor, ref: ItemRef, patch: CatalogItemPatch): Promise<CatalogItemView> {
  const em = ctx.em;
  const row = await lockItem(em, ref);
  if (!row || row.archived_at !== null) throw missing(ref);
  assertMayManage(actor, row, row.slug ?? row.id);
  const { issues, link } = await checkReferences(em, patch);
  if (issues.length > 0) throw validationFailed(issues);
  if (link) assertMayLink(actor, row, link);
  const changed = ITEM_UPDATABLE_COLUMNS.filter((col) => patch[col] !== undefined);
  // A new tools-token link moves the row to that token's integrator (claim eligibility).
  const updated = await updateItemRow(em, row.id, patch, link?.integratorId ?? null, ctx.clock.now().toISOString());
  audit(em, ctx, actor, AUDIT_ACTIONS.updated, row, { fields: changed });
  return toCatalogItemView(updated);
}

export const updateCatalogItem = defineOperation<UpdateCatalogItemInput, CatalogItemEnvelope, InboundTokenPrincipal>({
  name: 'catalog.item.update',
  auth: AUTH,
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: UpdateCatalogItemInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const { path_slug, slug: _slug, type: _type, ...patch } = input;
    return { ok: true as const, item: await updateItem(ctx, actorOf(ctx.principal), { slug: path_slug }, patch), requestId: ctx.requestId };
  },
});
