// REST v1 event routes: map -> call -> map. No business rules here.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { publishEvent } from '../../domain/events/publish-event.js';
import { publishBulk } from '../../domain/events/publish-bulk.js';
import { getDelivery } from '../../domain/events/get-delivery.js';
import { resolveDelivery } from '../../domain/events/resolve-delivery.js';
import { supplementDelivery } from '../../domain/events/supplement-delivery.js';
import { listEventTypes } from '../../domain/events/list-event-types.js';
import { invoke, withPathParams } from '../http/invoke.js';
import { requireContentLength } from '../http/json-body.js';

const REST = { surface: 'rest', channel: 'v1' } as const;
type IdParams = { Params: { deliveryId: string } };

export function registerEventRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/api/v1/events', { onRequest: requireContentLength }, async (req, reply) => {
    const { output } = await invoke(deps, publishEvent, req, reply, req.body, REST);
    return reply.code(output.created ? 202 : 200).send(output.delivery);
  });

  app.post('/api/v1/events/bulk', async (req, reply) => {
    const { output } = await invoke(deps, publishBulk, req, reply, req.body, REST);
    return reply.code(202).send(output);
  });

  app.get<IdParams>('/api/v1/events/:deliveryId', async (req, reply) => {
    const { output } = await invoke(deps, getDelivery, req, reply, { delivery_id: req.params.deliveryId }, REST);
    return reply.send(output);
  });

  app.post<IdParams>('/api/v1/events/:deliveryId/resolve', async (req, reply) => {
    const { output } = await invoke(deps, resolveDelivery, req, reply, withPathParams(req.body, { delivery_id: req.params.deliveryId }), REST);
    return reply.send(output);
  });

  app.post<IdParams>('/api/v1/events/:deliveryId/supplement', async (req, reply) => {
    const { output } = await invoke(deps, supplementDelivery, req, reply, withPathParams(req.body, { delivery_id: req.params.deliveryId }), REST);
    return reply.code(201).send(output);
  });

  app.get('/api/v1/event-types', async (req, reply) => {
    const { output } = await invoke(deps, listEventTypes, req, reply, req.query, REST);
    return reply.send(output);
  });
}
