import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { archiveItemRow, countLiveDependents, deleteItemWithDeadDependents, lockItem } from './catalog.repository.js';
import {
  DeleteCatalogItemInput,
  toCatalogItemView,
  type CatalogActor,
  type CatalogItemDeleteBlockers,
  type CatalogItemDeleteResponse,
  type CatalogItemView,
  type CoreContext,
  type ItemRef,
} from './catalog-items.schemas.js';
import { actorOf, assertMayManage, AUDIT_ACTIONS, audit, AUTH, missing } from './catalog-items.shared.js';

const hasBlockers = (b: CatalogItemDeleteBlockers) => b.liveApprovals + b.liveAssets + b.liveTokens > 0;

const deleteBlocked = (name: string, blockers: CatalogItemDeleteBlockers, detail?: string) =>
  new DomainError('conflict', detail ?? `catalog item "${name}" has live approvals, assets or tokens; archive it (soft delete) or revoke them first`, {
    code: 'delete_blocked',
    extra: { blockers },
  });

export interface ItemDeleted {
  mode: 'soft' | 'hard';
  /** The row's slug (old rows may have none). */
  slug: string | null;
  item: CatalogItemView | null;
  already_archived: boolean;
}

/** Soft archive (repeatable) or hard delete (refused with `blockers` while dependents live). */
export async function deleteItem(ctx: CoreContext, actor: CatalogActor, ref: ItemRef, hard: boolean): Promise<ItemDeleted> {
  const name = 'slug' in ref ? ref.slug : ref.id;
  let blockers: CatalogItemDeleteBlockers = { liveApprovals: 0, liveAssets: 0, liveTokens: 0 };
  const em = ctx.em;
  try {
    const row = await lockItem(em, ref);
    if (!row) throw missing(ref);
    assertMayManage(actor, row, name);
    if (!hard) {
      if (row.archived_at !== null) return { mode: 'soft', slug: row.slug, item: toCatalogItemView(row), already_archived: true };
      const now = ctx.clock.now().toISOString();
      const archived = await archiveItemRow(em, row.id, now);
      audit(em, ctx, actor, AUDIT_ACTIONS.archived, row, {});
      return { mode: 'soft', slug: row.slug, item: toCatalogItemView(archived), already_archived: false };
    }
    // Hard delete is allowed on an archived row too; only live dependents refuse it. The dead
    // ones go in the same transaction.
    blockers = await countLiveDependents(em, row);
    if (hasBlockers(blockers)) throw deleteBlocked(name, blockers);
    await deleteItemWithDeadDependents(em, row.id);
    audit(em, ctx, actor, AUDIT_ACTIONS.deleted, row, { name: row.name, type: row.type, was_archived: row.archived_at !== null });
    return { mode: 'hard', slug: row.slug, item: null, already_archived: false };
  } catch (err) {
    // A reference this operation does not know about (a table added later) refuses cleanly.
    if (err instanceof ForeignKeyConstraintViolationException || (err as { code?: string })?.code === '23503') {
      throw deleteBlocked(name, blockers, `catalog item "${name}" is still referenced by other records; archive it instead`);
    }
    throw err;
  }
}

export const deleteCatalogItem = defineOperation<DeleteCatalogItemInput, CatalogItemDeleteResponse, InboundTokenPrincipal>({
  name: 'catalog.item.delete',
  auth: AUTH,
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: DeleteCatalogItemInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const r = await deleteItem(ctx, actorOf(ctx.principal), { slug: input.slug }, input.hard);
    return { ok: true as const, mode: r.mode, slug: input.slug, item: r.item, already_archived: r.already_archived, requestId: ctx.requestId };
  },
});
