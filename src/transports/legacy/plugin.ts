// The older endpoints under /api/internal-os/*: same operations, legacy bodies.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { fastifyErrorToDomain, registerJsonBodyParser } from '../http/json-body.js';
import { registerRoutes } from '../http/route-declaration.js';
import { LEGACY_OPERATION_ROUTES, LEGACY_PAGES } from '../http/route-legacy.js';
import { sendLegacyError } from './errors.js';
import { protocolText } from './protocol-text.js';

const LEGACY = { surface: 'legacy', channel: 'legacy' } as const;
const INBOUND_PROTOCOL = protocolText('inbound-protocol.md');
const AGENT_PROTOCOL = protocolText('agent-protocol.md');

export async function legacyPlugin(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.setErrorHandler((err, req, reply) => sendLegacyError(reply, fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger)));

  registerJsonBodyParser(app);
  // The operation routes and the pages are declared in http/route-legacy.ts (also documented from there).
  registerRoutes(app, deps, LEGACY_OPERATION_ROUTES, LEGACY);
  registerRoutes(
    app,
    deps,
    [
      { ...LEGACY_PAGES.inboundProtocol, handler: async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(INBOUND_PROTOCOL) },
      { ...LEGACY_PAGES.agentProtocol, handler: async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(AGENT_PROTOCOL) },
      { ...LEGACY_PAGES.healthz, handler: async () => ({ ok: true }) },
    ],
    LEGACY,
  );

  // Version 1 paths are gone (SPEC Versioning 2). Every method (`all`): documented per method in http/route-legacy.ts.
  const gone = async (req: FastifyRequest<{ Params: { slug: string } }>) => {
    if (req.params.slug === 'personal') throw new DomainError('not_found', 'use POST for this endpoint', { code: 'method_not_allowed' });
    throw new DomainError(
      'gone',
      'inbound protocol version 1 was removed: use POST /api/internal-os/integrations/inbound/personal or /api/v1/events with spec_version "2"',
      { code: 'gone' },
    );
  };
  app.all<{ Params: { slug: string } }>('/inbound/:slug', gone);
  app.all<{ Params: { slug: string } }>('/api/internal-os/integrations/inbound/:slug', gone);
}
