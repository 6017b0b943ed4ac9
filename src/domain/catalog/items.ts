// Catalog item management (SPEC "Catalog item", "Catalog item archive state", REST v1
// `/api/v1/catalog/items`): create, list, get, patch, soft archive and hard delete. Every
// operation needs an admin-owned tools-token.
//
// Ownership (SPEC: `linked_tools_token_id` is the "tools-token of the integrator that owns the
// row", and claims are checked against the integrator's row): a row belongs to `integrator_id`,
// or to nobody (old rows, rows made without a link). A tools-token is an integrator's identity:
// it changes and deletes only its own integrator's rows and unowned ones, and links only its own
// integrator's tools-tokens, only at creation or on its own rows (adopting an unowned row would
// make the approvals of that row claimable by the integrator). An admin's agent token (the
// `catalog_item_*` tools) administers every row, but no caller moves an owned row to another
// integrator by re-linking it, and an admin links an unowned row only to a tools-token they own
// (a super admin: any).
import { ForeignKeyConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, notFound, validationFailed, type Issue } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { iso } from '../timestamps.js';
import { urlIssues } from '../urls.rules.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { userExists } from '../users/users.repository.js';
import {
  archiveItemRow,
  countLiveDependents,
  deleteItemWithDeadDependents,
  findItemBySlug,
  findToolsTokenLink,
  insertItemUnlessSlugTaken,
  ITEM_UPDATABLE_COLUMNS,
  listItemRows,
  lockItem,
  updateItemRow,
  type CatalogItemRow,
  type ItemUpdatableColumn,
} from './catalog.repository.js';
import { ASSET_TYPES, CATALOG_SLUG, categoryDisplay, type AssetType } from './catalog.rules.js';

const AUTH = { kind: 'inbound', tokenKinds: ['tools_claim'] } as const;

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
type CoreContext = Pick<OpContext, 'em' | 'clock' | 'surface' | 'requestId'>;

const actorOf = (p: InboundTokenPrincipal): CatalogActor => ({ userId: p.userId, role: p.userRole, tokenId: p.tokenId, integratorId: p.integratorId });

const AUDIT_ACTIONS = {
  created: 'catalog.item.created',
  updated: 'catalog.item.updated',
  archived: 'catalog.item.archived',
  deleted: 'catalog.item.deleted',
} as const;

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
  name: z.string().min(1).max(200),
  description: z.string().nullable(),
  category: z.string().max(120).nullable(),
  // No credentials stored (SPEC "What the service does" 3): the event URL secret rules apply to an
  // absolute URL; the field stays free text otherwise (no https rule in the spec for catalog rows).
  url: z
    .string()
    .max(2000)
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
  slug: z.string().max(80).regex(CATALOG_SLUG, { error: 'must match ^[a-z0-9][a-z0-9._-]{0,79}$' }),
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
const pathSlug = z.string().min(1).max(80);
export const UpdateCatalogItemInput = CatalogItemUpdateRequestSchema.extend({ path_slug: pathSlug });
export type UpdateCatalogItemInput = z.infer<typeof UpdateCatalogItemInput>;

/** Query-string booleans arrive as "true"/"false"; other surfaces send real booleans. */
const queryBoolean = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
/** Query-string integers arrive as decimal strings. */
const queryInt = (schema: z.ZodNumber) => z.preprocess((v) => (typeof v === 'string' && /^-?\d{1,12}$/.test(v) ? Number(v) : v), schema);

export const CATALOG_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;

export const ListCatalogItemsInput = z.strictObject({
  active_only: queryBoolean.default(true),
  category: z.string().min(1).max(120).optional(),
  type: z.enum(ASSET_TYPES).optional(),
  integrator_slug: z.string().min(1).max(80).optional(),
  limit: queryInt(z.number().int().min(CATALOG_LIST_LIMIT.min).max(CATALOG_LIST_LIMIT.max)).default(CATALOG_LIST_LIMIT.default),
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

const missing = (ref: ItemRef | string) =>
  notFound(typeof ref === 'string' ? `catalog item "${ref}"` : 'slug' in ref ? `catalog item "${ref.slug}"` : `catalog item ${ref.id}`);

const slugTaken = (slug: string) =>
  new DomainError('conflict', `catalog slug "${slug}" is already taken (archived rows keep their slug)`, { code: 'slug_taken', extra: { slug } });

/** The tools-token a row is to be linked to. */
interface LinkTarget {
  integratorId: string;
  ownerUserId: string;
}

/**
 * Referenced rows must exist: a contact user, and a tools-token for the link (its integrator
 * becomes the row's owner, which claim eligibility reads). Returns the field issues and the
 * linked tools-token.
 */
async function checkReferences(
  em: EntityManager,
  refs: { contact_user_id?: string | null; linked_tools_token_id?: string | null },
): Promise<{ issues: Issue[]; link: LinkTarget | null }> {
  const issues: Issue[] = [];
  let link: LinkTarget | null = null;
  if (refs.contact_user_id) {
    if (!(await userExists(em, refs.contact_user_id))) issues.push({ field: 'contact_user_id', code: 'not_found', message: 'no user with this id' });
  }
  if (refs.linked_tools_token_id) {
    const t = await findToolsTokenLink(em, refs.linked_tools_token_id);
    if (!t) issues.push({ field: 'linked_tools_token_id', code: 'not_found', message: 'no tools-token with this id' });
    else link = { integratorId: t.integrator_id, ownerUserId: t.owner_user_id };
  }
  return { issues, link };
}

const notOwned = (name: string) =>
  new DomainError('forbidden', `catalog item "${name}" belongs to another integrator; a tools-token manages only its own integrator's rows`, {
    code: 'catalog_item_not_owned',
  });

const linkRefused = (detail: string) =>
  new DomainError('forbidden', `linked_tools_token_id: ${detail}`, { code: 'tools_token_not_owned', extra: { field: 'linked_tools_token_id' } });

/** A tools-token touches only its own integrator's rows and unowned ones (see the file comment). */
function assertMayManage(actor: CatalogActor, row: Pick<CatalogItemRow, 'integrator_id'>, name: string): void {
  if (actor.integratorId !== undefined && row.integrator_id !== null && row.integrator_id !== actor.integratorId) throw notOwned(name);
}

/**
 * May `actor` link `link` to the row (`row` undefined: a row being created)? A row never moves to
 * another integrator by a link change; a tools-token links only its own integrator's tokens, and
 * never adopts an unowned row; an admin links an unowned row only to their own tools-token.
 */
function assertMayLink(actor: CatalogActor, row: Pick<CatalogItemRow, 'integrator_id'> | undefined, link: LinkTarget): void {
  const owner = row?.integrator_id ?? null;
  if (owner !== null && link.integratorId !== owner) throw linkRefused('must be a tools-token of the integrator that owns the row');
  if (actor.integratorId !== undefined) {
    if (link.integratorId !== actor.integratorId) throw linkRefused('must be a tools-token of your own integrator');
    if (row !== undefined && owner === null) throw linkRefused("a tools-token links only rows it creates or its own integrator's rows");
  } else if (owner === null && link.ownerUserId !== actor.userId && actor.role !== 'super_admin') {
    throw linkRefused('must be a tools-token you own');
  }
}

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string })?.code === '23505' || (err as { name?: string })?.name === 'UniqueConstraintViolationException';

// ---------------------------------------------------------------------------------------------
// Cores (shared by the tools-token operations below and the agent tools in domain/agent/)

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

export interface CatalogItemFilter {
  active_only: boolean;
  category?: string;
  type?: AssetType;
  integrator_slug?: string;
  limit: number;
}

/** Ordered by display_order then name; totalCount covers every matching row. */
export async function listItems(em: EntityManager, input: CatalogItemFilter): Promise<{ items: CatalogItemView[]; totalCount: number }> {
  const { rows, totalCount } = await listItemRows(em, input);
  return { items: rows.map(toCatalogItemView), totalCount };
}

export type CatalogItemPatch = Partial<Pick<z.infer<typeof CatalogItemUpdateRequestSchema>, ItemUpdatableColumn>>;

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

function audit(
  em: EntityManager,
  ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>,
  actor: CatalogActor,
  action: string,
  row: CatalogItemRow,
  summary: Record<string, unknown>,
): void {
  recordAudit(em, ctx, {
    action,
    actorUserId: actor.userId,
    tokenId: actor.tokenId,
    targetType: 'catalog_item',
    targetId: row.id,
    summary: { ...(actor.tool ? { tool: actor.tool } : {}), slug: row.slug, ...summary },
  });
}

// ---------------------------------------------------------------------------------------------
// Operations (admin tools-token: REST v1 and Connect)

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

export const listCatalogItems = defineOperation<ListCatalogItemsInput, CatalogItemListResponse, InboundTokenPrincipal>({
  name: 'catalog.items.list',
  auth: AUTH,
  budget: 'publish',
  idempotent: false,
  input: ListCatalogItemsInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return { ...(await listItems(ctx.em, input)), requestId: ctx.requestId };
  },
});

export const getCatalogItem = defineOperation<z.infer<typeof GetCatalogItemInput>, CatalogItemEnvelope, InboundTokenPrincipal>({
  name: 'catalog.items.get',
  auth: AUTH,
  budget: 'publish',
  idempotent: false,
  input: GetCatalogItemInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const row = await findItemBySlug(ctx.em, input.slug);
    if (!row || row.archived_at !== null) throw missing(input.slug);
    return { ok: true, item: toCatalogItemView(row), requestId: ctx.requestId };
  },
});

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
