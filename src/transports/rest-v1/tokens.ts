// REST v1 tools-token routes: claims, approvals, integrators. Map -> call -> map.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { claimToken, claimTokenBatch } from '../../domain/tokens/claim-token.js';
import { listIntegrators } from '../../domain/tokens/list-integrators.js';
import { assignCatalogApproval, listCatalogApprovals, reviewCatalogApproval, revokeCatalogApproval } from '../../domain/catalog/approvals.js';
import { invoke } from '../http/invoke.js';

const REST = { surface: 'rest', channel: 'v1' } as const;

export function registerToolsRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/api/v1/tokens/claim', async (req, reply) => {
    const { output } = await invoke(deps, claimToken, req, reply, req.body, REST);
    return reply.send({ token: output.token, tokenId: output.tokenId, ownerUserId: output.ownerUserId, expiresPriorAt: output.expiresPriorAt });
  });
  app.post('/api/v1/tokens/claim/batch', async (req, reply) => {
    const { output } = await invoke(deps, claimTokenBatch, req, reply, req.body, REST);
    return reply.send(output);
  });
  app.get('/api/v1/catalog/approvals', async (req, reply) => {
    const { output } = await invoke(deps, listCatalogApprovals, req, reply, req.query, REST);
    return reply.send(output);
  });
  app.post('/api/v1/catalog/approvals', async (req, reply) => {
    const { output } = await invoke(deps, assignCatalogApproval, req, reply, req.body, REST);
    return reply.code(201).send(output);
  });
  app.delete('/api/v1/catalog/approvals', async (req, reply) => {
    const { output } = await invoke(deps, revokeCatalogApproval, req, reply, req.body, REST);
    return reply.send(output);
  });
  // The spec leaves the review path open: POST /api/v1/catalog/approvals/review (documented in OpenAPI).
  app.post('/api/v1/catalog/approvals/review', async (req, reply) => {
    const { output } = await invoke(deps, reviewCatalogApproval, req, reply, req.body, REST);
    return reply.send(output);
  });
  app.get('/api/v1/integrators', async (req, reply) => {
    const { output } = await invoke(deps, listIntegrators, req, reply, req.query, REST);
    return reply.send(output);
  });
}
