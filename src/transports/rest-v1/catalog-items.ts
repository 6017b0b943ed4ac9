// REST v1 catalog item routes (SPEC A, `/api/v1/catalog/items`), declared once: map -> call -> map.
import {
  CatalogItemCreateRequestSchema,
  CatalogItemDeleteResponseSchema,
  CatalogItemEnvelopeSchema,
  CatalogItemListResponseSchema,
  CatalogItemUpdateRequestSchema,
  DeleteCatalogItemInput,
  ListCatalogItemsInput,
} from '../../domain/catalog/catalog-items.schemas.js';
import { createCatalogItem } from '../../domain/catalog/create-catalog-item.js';
import { deleteCatalogItem } from '../../domain/catalog/delete-catalog-item.js';
import { getCatalogItem } from '../../domain/catalog/get-catalog-item.js';
import { listCatalogItems } from '../../domain/catalog/list-catalog-items.js';
import { updateCatalogItem } from '../../domain/catalog/update-catalog-item.js';
import { withPathParams } from '../http/invoke.js';
import { queryObject, route, type RouteDecl } from '../http/route-declaration.js';
import { CATALOG_LIMITS } from '../../domain/catalog/catalog.limits.js';

const slugOf = (req: { params: unknown }) => (req.params as { slug: string }).slug;
const SLUG = { slug: { type: 'string', minLength: 1, maxLength: CATALOG_LIMITS.slugMax, description: 'The catalog item slug' } };
const Envelope = { name: 'CatalogItemResponse', schema: CatalogItemEnvelopeSchema };
const TOOLS = 'Admin tools-token (svc-tools-...) only: a tools-token whose owner is not an admin gets 403 forbidden_admin_only.';
// A tools-token manages only its own integrator's rows (and unowned ones) and links only its own
// integrator's tools-tokens (domain/catalog/catalog-items.shared.ts).
const OWNED = 'A row of another integrator is 403 catalog_item_not_owned.';
const LINK =
  "A `linked_tools_token_id` of another integrator's tools-token, or one that would adopt an unowned row, is 403 tools_token_not_owned (with `field`).";

export const CATALOG_ITEM_ROUTES: readonly RouteDecl[] = [
  route({
    method: 'POST',
    path: '/api/v1/catalog/items',
    tag: 'catalog-items',
    operationId: 'createCatalogItem',
    summary: 'Create a catalog item',
    description: `${TOOLS} Idempotency-Key scope catalog.item.create. A taken slug (archived rows keep theirs) is 409 slug_taken with \`slug\`. ${LINK}`,
    security: 'bearer',
    body: { name: 'CatalogItemCreateRequest', schema: CatalogItemCreateRequestSchema, required: true },
    success: [{ status: 201, description: 'Created', body: Envelope }],
    errors: { forbidden: ['forbidden_admin_only', 'tools_token_not_owned'], conflict: ['slug_taken'] },
    op: createCatalogItem,
    input: (req) => req.body,
    status: 201,
  }),
  route({
    method: 'GET',
    path: '/api/v1/catalog/items',
    tag: 'catalog-items',
    operationId: 'listCatalogItems',
    summary: 'List catalog items ordered by display_order then name',
    description: `${TOOLS} totalCount counts every match, ignoring limit.`,
    security: 'bearer',
    query: ListCatalogItemsInput,
    success: [{ status: 200, description: 'Matching items', body: { name: 'CatalogItemListResponse', schema: CatalogItemListResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'] },
    op: listCatalogItems,
    input: (req) => queryObject(req.query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/catalog/items/{slug}',
    tag: 'catalog-items',
    operationId: 'getCatalogItem',
    summary: 'Read one catalog item',
    description: `${TOOLS} A missing or archived row is 404.`,
    security: 'bearer',
    params: SLUG,
    success: [{ status: 200, description: 'The item', body: Envelope }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'] },
    op: getCatalogItem,
    input: (req) => ({ slug: slugOf(req) }),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/catalog/items/{slug}',
    tag: 'catalog-items',
    operationId: 'updateCatalogItem',
    summary: 'Update a catalog item',
    description: `${TOOLS} Idempotency-Key scope catalog.item.update. slug and type are immutable (400 with fieldErrors \`{slug: ["immutable"]}\`). A missing or archived row is 404. ${OWNED} ${LINK}`,
    security: 'bearer',
    params: SLUG,
    body: {
      name: 'CatalogItemUpdateRequest',
      // slug and type are listed in the zod schema only to refuse them as `immutable`.
      schema: CatalogItemUpdateRequestSchema.omit({ slug: true, type: true }),
      required: true,
      description: 'Any subset of the editable fields. Sending `slug` or `type` gives 400 with fieldErrors `{slug: ["immutable"]}`.',
    },
    success: [{ status: 200, description: 'The updated item', body: Envelope }],
    errors: { forbidden: ['forbidden_admin_only', 'catalog_item_not_owned', 'tools_token_not_owned'], not_found: ['not_found'] },
    op: updateCatalogItem,
    // The path slug travels as `path_slug`: a `slug` in the body is refused as immutable.
    input: (req) => withPathParams(req.body, { path_slug: slugOf(req) }),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/catalog/items/{slug}',
    tag: 'catalog-items',
    operationId: 'deleteCatalogItem',
    summary: 'Archive (default) or hard-delete a catalog item',
    description:
      `${TOOLS} Idempotency-Key scope catalog.item.delete. Soft (default) archives the row; a repeat answers already_archived true. ` +
      `Hard (\`hard=true\`) removes it, refused with 409 delete_blocked and \`blockers\` while live approvals, assets or tokens exist. ${OWNED}`,
    security: 'bearer',
    params: SLUG,
    query: DeleteCatalogItemInput.omit({ slug: true }),
    success: [
      {
        status: 200,
        description: 'Archived (mode soft; already_archived on a repeat) or removed (mode hard, item null)',
        body: { name: 'CatalogItemDeleteResponse', schema: CatalogItemDeleteResponseSchema },
      },
    ],
    errors: { forbidden: ['forbidden_admin_only', 'catalog_item_not_owned'], not_found: ['not_found'], conflict: ['delete_blocked'] },
    op: deleteCatalogItem,
    input: (req) => ({ ...queryObject(req.query), slug: slugOf(req) }),
  }),
];
