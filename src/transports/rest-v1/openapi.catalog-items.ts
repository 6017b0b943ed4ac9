// OpenAPI 3.1 paths and component schemas of `/api/v1/catalog/items`, derived from the same zod
// schemas the runner validates with (merged into the document by openapi.ts).
import {
  CatalogItemCreateRequestSchema,
  CatalogItemDeleteBlockersSchema,
  CatalogItemDeleteResponseSchema,
  CatalogItemEnvelopeSchema,
  CatalogItemListResponseSchema,
  CatalogItemUpdateRequestSchema,
  CatalogItemViewSchema,
  DeleteCatalogItemInput,
  ListCatalogItemsInput,
} from '../../domain/catalog/items.js';
import * as kit from './openapi-kit.js';
import { js, queryParams, type OpenApiPart } from './openapi-kit.js';

type CatalogItemOpenApiHelpers = typeof kit;

export function catalogItemSchemas(): Record<string, unknown> {
  // slug and type are listed in the zod schema only to refuse them as `immutable`.
  const update = CatalogItemUpdateRequestSchema.omit({ slug: true, type: true });
  const blockers = js(CatalogItemDeleteBlockersSchema, 'output');
  return {
    CatalogItem: js(CatalogItemViewSchema, 'output'),
    CatalogItemCreateRequest: js(CatalogItemCreateRequestSchema, 'input'),
    CatalogItemUpdateRequest: { ...js(update, 'input'), description: 'Any subset of the editable fields. Sending `slug` or `type` gives 400 with fieldErrors `{slug: ["immutable"]}`.' },
    CatalogItemResponse: js(CatalogItemEnvelopeSchema, 'output'),
    CatalogItemListResponse: js(CatalogItemListResponseSchema, 'output'),
    CatalogItemDeleteResponse: js(CatalogItemDeleteResponseSchema, 'output'),
    CatalogItemDeleteBlockers: blockers,
    CatalogItemDeleteConflict: {
      type: 'object',
      description: 'Problem body of a refused hard delete (code `delete_blocked`).',
      properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, instance: { type: 'string' }, requestId: { type: 'string' }, code: { type: 'string' }, blockers },
      required: ['type', 'title', 'status', 'detail', 'requestId', 'code', 'blockers'],
    },
  };
}

export function catalogItemPaths(h: CatalogItemOpenApiHelpers): Record<string, unknown> {
  const slugParam = { name: 'slug', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 80 } };
  const problem = (description: string, schema = h.ref('Problem')) => ({ description, content: { 'application/problem+json': { schema } } });
  const ok = (description: string, schema: string) => ({ description, headers: h.rateHeaders, content: h.json(h.ref(schema)) });
  const admin = { 403: problem('The caller\'s tools-token is not owned by an admin') };
  // A tools-token manages only its own integrator's rows (and unowned ones) and links only its own
  // integrator's tools-tokens (domain/catalog/items.ts).
  const notOwnedText = 'the row belongs to another integrator (code catalog_item_not_owned)';
  const linkText = "linked_tools_token_id names a tools-token of another integrator, or would adopt an unowned row (code tools_token_not_owned)";
  const ownerRules = (...rules: string[]) => ({ 403: problem(`The caller's tools-token is not owned by an admin (code forbidden_admin_only), or ${rules.join(', or ')}`) });
  return {
    '/api/v1/catalog/items': {
      get: {
        operationId: 'listCatalogItems',
        summary: 'List catalog items ordered by display_order then name (admin tools-token)',
        security: h.bearer,
        parameters: [...h.commonHeaders, ...queryParams(ListCatalogItemsInput)],
        responses: { 200: ok('Matching items; totalCount ignores limit', 'CatalogItemListResponse'), ...h.errors(400, 401, 403, 429), ...admin },
      },
      post: {
        operationId: 'createCatalogItem',
        summary: 'Create a catalog item (admin tools-token; Idempotency-Key scope catalog.item.create)',
        security: h.bearer,
        parameters: [...h.commonHeaders, h.idem],
        requestBody: { required: true, content: h.json(h.ref('CatalogItemCreateRequest')) },
        responses: {
          201: ok('Created', 'CatalogItemResponse'),
          ...h.errors(400, 401, 403, 409, 413, 415, 429),
          ...ownerRules(linkText),
          409: problem('Slug already taken (code slug_taken; archived rows keep their slug), or Idempotency-Key reused with another body'),
        },
      },
    },
    '/api/v1/catalog/items/{slug}': {
      get: {
        operationId: 'getCatalogItem',
        summary: 'Read one catalog item (archived rows answer 404)',
        security: h.bearer,
        parameters: [...h.commonHeaders, slugParam],
        responses: { 200: ok('The item', 'CatalogItemResponse'), ...h.errors(401, 403, 404, 429), ...admin },
      },
      patch: {
        operationId: 'updateCatalogItem',
        summary: 'Update a catalog item; slug and type are immutable (Idempotency-Key scope catalog.item.update)',
        security: h.bearer,
        parameters: [...h.commonHeaders, h.idem, slugParam],
        requestBody: { required: true, content: h.json(h.ref('CatalogItemUpdateRequest')) },
        responses: { 200: ok('The updated item', 'CatalogItemResponse'), ...h.errors(400, 401, 403, 404, 409, 413, 415, 429), ...ownerRules(notOwnedText, linkText) },
      },
      delete: {
        operationId: 'deleteCatalogItem',
        summary: 'Archive (default) or hard-delete a catalog item (Idempotency-Key scope catalog.item.delete)',
        security: h.bearer,
        parameters: [...h.commonHeaders, h.idem, slugParam, ...queryParams(DeleteCatalogItemInput, ['slug'])],
        responses: {
          200: ok('Archived (mode soft; already_archived on a repeat) or removed (mode hard, item null)', 'CatalogItemDeleteResponse'),
          ...h.errors(400, 401, 403, 404, 409, 429),
          ...ownerRules(notOwnedText),
          409: problem('Hard delete refused while live approvals, assets or tokens exist (code delete_blocked, with blockers), or Idempotency-Key conflict', h.ref('CatalogItemDeleteConflict')),
        },
      },
    },
  };
}

export function catalogItemsOpenApi(): OpenApiPart {
  return { schemas: catalogItemSchemas(), paths: catalogItemPaths(kit) };
}
