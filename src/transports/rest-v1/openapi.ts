// OpenAPI 3.1 derived from the SAME zod schemas the runner validates with and the response
// schemas the handlers build; nothing is copied by hand.
import { z } from 'zod';
import { InboundEventSchema } from '../../domain/events/event-validation.rules.js';
import { DeliveryViewSchema } from '../../domain/events/delivery.view.js';
import { ResolveDeliveryInput } from '../../domain/events/resolve-delivery.js';
import { SupplementDeliveryInput } from '../../domain/events/supplement-delivery.js';
import { EventTypesResponseSchema } from '../../domain/events/list-event-types.js';
import { bearer, commonHeaders, errors, idem, js, json, rateHeaders, ref } from './openapi-kit.js';
import { toolsOpenApi } from './openapi.tools.js';
import { catalogItemsOpenApi } from './openapi.catalog-items.js';

export const API_VERSION = '0.25.935';

export const HealthSchema = z.strictObject({ ok: z.boolean(), version: z.string(), serverTime: z.iso.datetime().optional() });

const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int().min(100).max(599),
  detail: z.string(),
  instance: z.string(),
  requestId: z.string(),
  code: z.string(),
  fieldErrors: z.record(z.string(), z.array(z.string())).optional(),
  errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
});

const omitKey = (s: z.ZodObject, key: string) => s.omit({ [key]: true } as never);

export function buildOpenApi(publicBaseUrl: string): Record<string, unknown> {
  const deliveryIdParam = { name: 'deliveryId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const parts = [toolsOpenApi(), catalogItemsOpenApi()];

  return {
    openapi: '3.1.0',
    info: {
      title: 'fluxdesk REST API',
      version: API_VERSION,
      description: 'Inbound events, token claims, catalog and introspection. Inbound protocol text: /api/internal-os/integrations/protocol.',
    },
    servers: [{ url: publicBaseUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Personal token (svc-in-pers-...) or tools-token (svc-tools-...)' } },
      schemas: {
        InboundEvent: js(InboundEventSchema, 'input'),
        Delivery: js(DeliveryViewSchema, 'output'),
        ResolveRequest: js(omitKey(ResolveDeliveryInput, 'delivery_id'), 'input'),
        SupplementRequest: js(omitKey(SupplementDeliveryInput, 'delivery_id'), 'input'),
        EventTypesResponse: js(EventTypesResponseSchema, 'output'),
        Health: js(HealthSchema, 'output'),
        Problem: js(ProblemSchema, 'output'),
        ...Object.assign({}, ...parts.map((p) => p.schemas)),
      },
    },
    paths: {
      '/api/v1/events': {
        post: {
          operationId: 'publishEvent',
          summary: 'Publish one event to the token owner\'s inbox',
          security: bearer,
          parameters: [...commonHeaders, idem],
          requestBody: { required: true, content: json(ref('InboundEvent')) },
          responses: {
            202: { description: 'Created; recipient notified', headers: rateHeaders, content: json(ref('Delivery')) },
            200: { description: 'Repeat of (token, event_id): deduped', headers: rateHeaders, content: json(ref('Delivery')) },
            ...errors(400, 401, 403, 409, 413, 415, 429, 503),
          },
        },
      },
      '/api/v1/events/{deliveryId}': {
        get: {
          operationId: 'getDelivery',
          summary: 'Read back a delivery with its supplements (original sender only)',
          security: bearer,
          parameters: [...commonHeaders, deliveryIdParam],
          responses: { 200: { description: 'The delivery', headers: rateHeaders, content: json(ref('Delivery')) }, ...errors(400, 401, 403, 404, 429) },
        },
      },
      '/api/v1/events/{deliveryId}/resolve': {
        post: {
          operationId: 'resolveDelivery',
          summary: 'Stamp a delivery resolved (original sender only; idempotent)',
          security: bearer,
          parameters: [...commonHeaders, idem, deliveryIdParam],
          requestBody: { required: false, content: json(ref('ResolveRequest')) },
          responses: { 200: { description: 'The resolved delivery', headers: rateHeaders, content: json(ref('Delivery')) }, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      '/api/v1/events/{deliveryId}/supplement': {
        post: {
          operationId: 'supplementDelivery',
          summary: 'Append a supplement (original text never changes)',
          security: bearer,
          parameters: [...commonHeaders, idem, deliveryIdParam],
          requestBody: { required: true, content: json(ref('SupplementRequest')) },
          responses: { 201: { description: 'The delivery with supplements', headers: rateHeaders, content: json(ref('Delivery')) }, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      '/api/v1/event-types': {
        get: {
          operationId: 'listEventTypes',
          summary: 'Event types of your integrator (90 days) and the service\'s internal-os. types',
          security: bearer,
          parameters: [...commonHeaders, { name: 'integrator_slug', in: 'query', required: false, schema: { type: 'string', maxLength: 80 }, description: 'admin tools-token only' }],
          responses: { 200: { description: 'Event types', headers: rateHeaders, content: json(ref('EventTypesResponse')) }, ...errors(400, 401, 403, 404, 429) },
        },
      },
      '/api/v1/health': {
        get: { operationId: 'health', summary: 'Liveness and version (no database access)', responses: { 200: { description: 'Healthy', content: json(ref('Health')) } } },
      },
      ...Object.assign({}, ...parts.map((p) => p.paths)),
      '/api/v1/openapi.json': { get: { operationId: 'openapi', summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1 JSON' } } } },
      '/api/v1/docs': { get: { operationId: 'docs', summary: 'Interactive viewer of this document', responses: { 200: { description: 'HTML', content: { 'text/html': {} } } } } },
    },
  };
}
