// Catalog rows are addressed by `catalog_slug` or `catalog_id`, exactly one (SPEC C
// assign_catalog_to_employee; catalog_item_update and _delete take `slug` or `id` likewise).
import { z } from 'zod';
import type { CatalogItemRef } from './catalog-approvals.schemas.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export const catalogRefFields = {
  catalog_slug: z.string().min(1).max(CATALOG_LIMITS.slugMax).optional(),
  catalog_id: z.uuid({ error: 'must be a UUID' }).optional(),
};

/** A superRefine check: exactly one of `keys` is present (reported on the first key). */
export function exactlyOne(...keys: string[]) {
  return (v: Record<string, unknown>, c: z.RefinementCtx): void => {
    const given = keys.filter((k) => v[k] !== undefined);
    if (given.length === 1) return;
    c.addIssue({
      code: 'custom',
      path: [given[1] ?? keys[0]!],
      message: given.length === 0 ? `give one of ${keys.join(' or ')}` : `give only one of ${keys.join(' or ')}`,
      params: { code: 'exactly_one' },
    });
  };
}

/** At most one of `keys` (optional addressing, e.g. a list filter). */
export function atMostOne(...keys: string[]) {
  return (v: Record<string, unknown>, c: z.RefinementCtx): void => {
    const given = keys.filter((k) => v[k] !== undefined);
    if (given.length > 1) c.addIssue({ code: 'custom', path: [given[1]!], message: `give only one of ${keys.join(' or ')}`, params: { code: 'exactly_one' } });
  };
}

export const catalogRefOf = (v: { catalog_slug?: string; catalog_id?: string }): CatalogItemRef =>
  v.catalog_id !== undefined ? { id: v.catalog_id } : { slug: v.catalog_slug! };
