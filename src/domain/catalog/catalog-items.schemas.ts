// Shapes of the catalog item operations (SPEC "Catalog item"): request and response schemas, which
// are also the OpenAPI components, and the row -> view mapping the operations and agent tools share.
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { iso } from '../timestamps.js';
import { urlIssues } from '../urls.rules.js';
import type { CatalogItemRow, ItemUpdatableColumn } from './catalog.repository.js';
import { ASSET_TYPES, categoryDisplay, type AssetType } from './catalog.rules.js';
import { CATALOG_LIMITS, CATALOG_SLUG } from './catalog.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

/**
 * Who changes the catalog: an admin tools-token (REST, Connect) or an admin's agent token (the
 * `catalog_item_*` tools, which name themselves in `tool`). Audited as the acting user and token.
 */
export interface CatalogActor {
  userId: string;
  /** The acting user's role (a super admin links any tools-token through the agent tools). */
  role: string;
  tokenId: string;
  tool?: string;
  /** Set for a tools-token caller: the integrator whose rows it manages. */
  integratorId?: string;
}

/** The cores below run in the caller's transaction: `em` of a writing operation (`writes: true`). */
export type CoreContext = Pick<OpContext, 'em' | 'clock' | 'surface' | 'requestId'>;

// ---------------------------------------------------------------------------------------------
// Schemas (also the OpenAPI components)

/** SPEC "Catalog item": field names exactly as the spec table spells them. */
export const CatalogItemViewSchema = z.strictObject({
  id: z.uuid(),
  slug: z.string().nullable(),
  name: z.string(),
  type: z.enum(ASSET_TYPES),
  description: z.string().nullable(),
  category: z.string().nullable(),
  categoryDisplay: z.string(),
  url: z.string().nullable(),
  application_guide: z.string().nullable(),
  use_cases: z.array(z.unknown()),
  is_pinned: z.boolean(),
  approval_required: z.boolean(),
  display_order: z.number().int(),
  contact_user_id: z.uuid().nullable(),
  linked_tools_token_id: z.uuid().nullable(),
  archived_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type CatalogItemView = z.infer<typeof CatalogItemViewSchema>;

export const CatalogItemDeleteBlockersSchema = z.strictObject({
  liveApprovals: z.number().int().min(0),
  liveAssets: z.number().int().min(0),
  liveTokens: z.number().int().min(0),
});
export type CatalogItemDeleteBlockers = z.infer<typeof CatalogItemDeleteBlockersSchema>;

export const CatalogItemEnvelopeSchema = z.strictObject({ ok: z.literal(true), item: CatalogItemViewSchema, requestId: z.string() });
export type CatalogItemEnvelope = z.infer<typeof CatalogItemEnvelopeSchema>;

export const CatalogItemListResponseSchema = z.strictObject({
  items: z.array(CatalogItemViewSchema),
  totalCount: z.number().int().min(0),
  requestId: z.string(),
});
export type CatalogItemListResponse = z.infer<typeof CatalogItemListResponseSchema>;

export const CatalogItemDeleteResponseSchema = z.strictObject({
  ok: z.literal(true),
  mode: z.enum(['soft', 'hard']),
  slug: z.string(),
  item: CatalogItemViewSchema.nullable(),
  already_archived: z.boolean(),
  requestId: z.string(),
});
export type CatalogItemDeleteResponse = z.infer<typeof CatalogItemDeleteResponseSchema>;

// PostgreSQL `int` bounds of display_order; column widths of category and url.
const INT4 = { min: -2147483648, max: 2147483647 } as const;
const displayOrder = z.number().int().min(INT4.min).max(INT4.max);
const nullableUuid = z.uuid({ error: 'must be a UUID' }).nullable();

/** The editable fields, shared by create and update (update has no defaults). */
const editable = {
  name: z.string().min(1).max(CATALOG_LIMITS.nameMax),
  description: z.string().nullable(),
  category: z.string().max(CATALOG_LIMITS.categoryMax).nullable(),
  // No credentials stored (SPEC "What the service does" 3): the event URL secret rules apply to an
  // absolute URL; the field stays free text otherwise (no https rule in the spec for catalog rows).
  url: z
    .string()
    .max(CATALOG_LIMITS.urlMax)
    .superRefine((u, ctx) => {
      for (const issue of urlIssues(u))
        if (issue.code !== 'invalid_format') ctx.addIssue({ code: 'custom', message: issue.message, params: { code: issue.code } });
    })
    .nullable(),
  application_guide: z.string().nullable(),
  use_cases: z.array(z.unknown()),
  display_order: displayOrder,
  is_pinned: z.boolean(),
  approval_required: z.boolean(),
  contact_user_id: nullableUuid,
  linked_tools_token_id: nullableUuid,
};

export const CatalogItemCreateRequestSchema = z.strictObject({
  slug: z
    .string()
    .max(CATALOG_LIMITS.slugMax)
    .regex(CATALOG_SLUG, { error: `must match ${CATALOG_SLUG.source}` }),
  name: editable.name,
  type: z.enum(ASSET_TYPES),
  description: editable.description.optional(),
  category: editable.category.optional(),
  url: editable.url.optional(),
  application_guide: editable.application_guide.optional(),
  use_cases: editable.use_cases.optional(),
  display_order: editable.display_order.optional(),
  is_pinned: editable.is_pinned.default(false),
  approval_required: editable.approval_required.default(true),
  contact_user_id: editable.contact_user_id.optional(),
  linked_tools_token_id: editable.linked_tools_token_id.optional(),
});
export type CatalogItemCreateRequest = z.infer<typeof CatalogItemCreateRequestSchema>;

/** `slug` and `type` are immutable: sending either (any value) is a field error `immutable`. */
const immutable = z.unknown().refine((v) => v === undefined, { error: 'immutable', params: { code: 'immutable' } });

/** PATCH body. The path's slug travels as `path_slug`, so a `slug` in the body is still detected. */
export const CatalogItemUpdateRequestSchema = z.strictObject({
  slug: immutable.optional(),
  type: immutable.optional(),
  name: editable.name.optional(),
  description: editable.description.optional(),
  category: editable.category.optional(),
  url: editable.url.optional(),
  application_guide: editable.application_guide.optional(),
  use_cases: editable.use_cases.optional(),
  display_order: editable.display_order.optional(),
  is_pinned: editable.is_pinned.optional(),
  approval_required: editable.approval_required.optional(),
  contact_user_id: editable.contact_user_id.optional(),
  linked_tools_token_id: editable.linked_tools_token_id.optional(),
});
/** Lookups accept any stored slug (old rows may predate the pattern); a miss is a 404. */
const pathSlug = z.string().min(1).max(CATALOG_LIMITS.slugMax);
export const UpdateCatalogItemInput = CatalogItemUpdateRequestSchema.extend({ path_slug: pathSlug });
export type UpdateCatalogItemInput = z.infer<typeof UpdateCatalogItemInput>;

/** Query-string booleans arrive as "true"/"false"; other surfaces send real booleans. */
const queryBoolean = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
/** Query-string integers arrive as decimal strings. */
const queryInt = (schema: z.ZodNumber) => z.preprocess((v) => (typeof v === 'string' && /^-?\d{1,12}$/.test(v) ? Number(v) : v), schema);

export const ListCatalogItemsInput = z.strictObject({
  active_only: queryBoolean.default(true),
  category: z.string().min(1).max(CATALOG_LIMITS.categoryMax).optional(),
  type: z.enum(ASSET_TYPES).optional(),
  integrator_slug: z.string().min(1).max(TOKEN_LIMITS.integratorSlugMax).optional(),
  limit: queryInt(z.number().int().min(1).max(CATALOG_LIMITS.listMax)).default(CATALOG_LIMITS.listDefault),
});
export type ListCatalogItemsInput = z.infer<typeof ListCatalogItemsInput>;

export const GetCatalogItemInput = z.strictObject({ slug: pathSlug });
export const DeleteCatalogItemInput = z.strictObject({ slug: pathSlug, hard: queryBoolean.default(false) });
export type DeleteCatalogItemInput = z.infer<typeof DeleteCatalogItemInput>;

// ---------------------------------------------------------------------------------------------
// Rows and views

export function toCatalogItemView(r: CatalogItemRow): CatalogItemView {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    type: r.type as AssetType,
    description: r.description,
    category: r.category,
    categoryDisplay: categoryDisplay(r.category),
    url: r.url,
    application_guide: r.application_guide,
    use_cases: Array.isArray(r.use_cases) ? r.use_cases : [],
    is_pinned: r.is_pinned,
    approval_required: r.approval_required,
    display_order: Number(r.display_order),
    contact_user_id: r.contact_user_id,
    linked_tools_token_id: r.linked_tools_token_id,
    archived_at: r.archived_at === null ? null : iso(r.archived_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** A row addressed by slug (REST, Connect, agent tools) or by id (agent tools). */
export type ItemRef = { slug: string } | { id: string };

export type CatalogItemPatch = Partial<Pick<z.infer<typeof CatalogItemUpdateRequestSchema>, ItemUpdatableColumn>>;
