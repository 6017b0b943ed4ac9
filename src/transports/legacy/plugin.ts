// The older endpoints under /api/internal-os/*: same operations, legacy bodies.
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { publishEvent } from '../../domain/events/publish-event.js';
import { pingPersonalToken } from '../../domain/tokens/ping-token.js';
import { claimToken, legacyClaimBatch, pingToolsToken } from '../../domain/tokens/claim-token.js';
import { revokeCatalogApproval } from '../../domain/catalog/approvals.js';
import { exchangeConnectSession } from '../../domain/agent/connect-session.js';
import { fastifyErrorToDomain, registerJsonBodyParser, requireContentLength } from '../http/json-body.js';
import { invoke } from '../http/invoke.js';
import { sendLegacyError } from './errors.js';

const LEGACY = { surface: 'legacy', channel: 'legacy' } as const;
const INBOUND_PROTOCOL = readFileSync(new URL('./protocol/inbound-protocol.md', import.meta.url), 'utf8');
const AGENT_PROTOCOL = readFileSync(new URL('./protocol/agent-protocol.md', import.meta.url), 'utf8');

export async function legacyPlugin(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.setErrorHandler((err, req, reply) => sendLegacyError(reply, fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger)));

  registerJsonBodyParser(app);
  app.post('/api/internal-os/integrations/inbound/personal', { onRequest: requireContentLength }, async (req, reply) => {
    const { output } = await invoke(deps, publishEvent, req, reply, req.body, LEGACY);
    return reply.code(output.created ? 202 : 200).send(output.delivery);
  });

  app.post('/api/internal-os/integrations/inbound/personal/ping', async (req, reply) => {
    const { output } = await invoke(deps, pingPersonalToken, req, reply, req.body ?? {}, LEGACY);
    return reply.send(output);
  });

  const endpoint = `${deps.config.publicBaseUrl}/api/internal-os/integrations/inbound/personal`;
  app.post('/api/internal-os/integrations/claim', async (req, reply) => {
    const { output } = await invoke(deps, claimToken, req, reply, req.body, LEGACY);
    return reply.code(output.rotated ? 200 : 201).send({ ok: true, token: output.token, token_id: output.tokenId, endpoint, rotated: output.rotated });
  });
  app.post('/api/internal-os/integrations/claim/batch', async (req, reply) => {
    const { output } = await invoke(deps, legacyClaimBatch, req, reply, req.body, LEGACY);
    return reply.send({ ok: true, endpoint, ...output });
  });
  app.post('/api/internal-os/integrations/claim/ping', async (req, reply) => {
    const { output } = await invoke(deps, pingToolsToken, req, reply, req.body, LEGACY);
    return reply.send(output);
  });
  // Same core as DELETE /api/v1/catalog/approvals; notifies the employee unless notify_employee is false.
  app.post('/api/internal-os/integrations/catalog/approval', async (req, reply) => {
    const { output } = await invoke(deps, revokeCatalogApproval, req, reply, req.body, LEGACY);
    return reply.send({ ok: true, revoked: output.revoked, tokens_invalidated: output.tokensInvalidated });
  });

  // One-click client setup: a connect session id (no bearer) for one agent token, exactly once;
  // unknown, expired and reused sessions all get 400 {error: 'invalid_session'}.
  app.post('/api/internal-os/agent/connect-callback', async (req, reply) => {
    const { output } = await invoke(deps, exchangeConnectSession, req, reply, req.body, LEGACY);
    return reply.header('cache-control', 'no-store').send(output);
  });

  app.get('/api/internal-os/integrations/protocol', async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(INBOUND_PROTOCOL));
  app.get('/api/internal-os/agent/protocol', async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(AGENT_PROTOCOL));
  app.get('/api/internal-os/healthz', async () => ({ ok: true }));

  // Version 1 paths are gone (SPEC Versioning 2).
  const gone = async (req: FastifyRequest<{ Params: { slug: string } }>) => {
    if (req.params.slug === 'personal') throw new DomainError('not_found', 'use POST for this endpoint', { code: 'method_not_allowed' });
    throw new DomainError('gone', 'inbound protocol version 1 was removed: use POST /api/internal-os/integrations/inbound/personal or /api/v1/events with spec_version "2"', { code: 'gone' });
  };
  app.all<{ Params: { slug: string } }>('/inbound/:slug', gone);
  app.all<{ Params: { slug: string } }>('/api/internal-os/integrations/inbound/:slug', gone);
}
