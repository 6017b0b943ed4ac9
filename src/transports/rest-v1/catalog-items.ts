// REST v1 catalog item routes (SPEC A, `/api/v1/catalog/items`): map -> call -> map.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { createCatalogItem, deleteCatalogItem, getCatalogItem, listCatalogItems, updateCatalogItem } from '../../domain/catalog/items.js';
import { invoke, withPathParams } from '../http/invoke.js';

const REST = { surface: 'rest', channel: 'v1' } as const;
type SlugParams = { Params: { slug: string } };

const queryObject = (q: unknown): Record<string, unknown> => (q && typeof q === 'object' ? { ...(q as Record<string, unknown>) } : {});

export function registerCatalogItemRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/api/v1/catalog/items', async (req, reply) => {
    const { output } = await invoke(deps, createCatalogItem, req, reply, req.body, REST);
    return reply.code(201).send(output);
  });

  app.get('/api/v1/catalog/items', async (req, reply) => {
    const { output } = await invoke(deps, listCatalogItems, req, reply, queryObject(req.query), REST);
    return reply.send(output);
  });

  app.get<SlugParams>('/api/v1/catalog/items/:slug', async (req, reply) => {
    const { output } = await invoke(deps, getCatalogItem, req, reply, { slug: req.params.slug }, REST);
    return reply.send(output);
  });

  // The path slug travels as `path_slug`: a `slug` in the body is refused as immutable.
  app.patch<SlugParams>('/api/v1/catalog/items/:slug', async (req, reply) => {
    const { output } = await invoke(deps, updateCatalogItem, req, reply, withPathParams(req.body, { path_slug: req.params.slug }), REST);
    return reply.send(output);
  });

  app.delete<SlugParams>('/api/v1/catalog/items/:slug', async (req, reply) => {
    const { output } = await invoke(deps, deleteCatalogItem, req, reply, { ...queryObject(req.query), slug: req.params.slug }, REST);
    return reply.send(output);
  });
}
