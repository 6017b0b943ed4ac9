// `catalog_item_delete` (admin, scope admin:catalog): REST's soft archive or hard delete
// (delete-catalog-item.ts) for an admin's agent token, the row addressed by `slug` or `id`. A
// blocked delete names its blocker counts in the one-string tool error.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { actor, common, itemRefFields, refOf } from './catalog-item-tools.shared.js';
import { CatalogItemDeleteBlockersSchema, CatalogItemViewSchema, type CatalogItemDeleteBlockers } from './catalog-items.schemas.js';
import { exactlyOne } from './catalog-ref.rules.js';
import { deleteItem } from './delete-catalog-item.js';

export const CatalogItemDeleteInput = z.strictObject({ ...itemRefFields, hard: z.boolean().default(false) }).superRefine(exactlyOne('slug', 'id'));
export const CatalogItemDeleteOutput = z.object({
  ok: z.literal(true),
  mode: z.enum(['soft', 'hard']),
  slug: z.string().nullable(),
  item: CatalogItemViewSchema.nullable(),
  already_archived: z.boolean(),
});

const countsText = (b: CatalogItemDeleteBlockers) => `liveApprovals ${b.liveApprovals}, liveAssets ${b.liveAssets}, liveTokens ${b.liveTokens}`;

export const catalogItemDelete = defineOperation<z.infer<typeof CatalogItemDeleteInput>, z.infer<typeof CatalogItemDeleteOutput>, AgentPrincipal>({
  name: 'agent.catalog_item_delete',
  ...common,
  idempotent: true,
  writes: true,
  input: CatalogItemDeleteInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    try {
      return { ok: true as const, ...(await deleteItem(ctx, actor(ctx, 'catalog_item_delete'), refOf(input), input.hard)) };
    } catch (err) {
      // The flat tool error is one string: the blocker counts go into it.
      const blockers = err instanceof DomainError && err.code === 'delete_blocked' ? CatalogItemDeleteBlockersSchema.safeParse(err.extra.blockers) : undefined;
      if (err instanceof DomainError && blockers?.success) {
        throw new DomainError('conflict', `${err.message} (${countsText(blockers.data)})`, { code: err.code, extra: err.extra });
      }
      throw err;
    }
  },
});
