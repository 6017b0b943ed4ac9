// REST v1 surface: its own encapsulated plugin with its own error handler (problem+json).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { fastifyErrorToDomain, registerJsonBodyParser } from '../http/json-body.js';
import { sendProblem } from './problem.js';
import { registerEventRoutes } from './events.js';
import { registerCatalogItemRoutes } from './catalog-items.js';
import { registerToolsRoutes } from './tokens.js';
import { buildOpenApi } from './openapi.js';

export interface RestV1Options {
  deps: AppDeps;
  errorsBaseUrl: string;
  publicBaseUrl: string;
  serviceVersion: string;
}

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fluxdesk REST API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/init.js"></script></body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', deepLinking: true });`;
const ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' };

export async function restV1Plugin(app: FastifyInstance, opts: RestV1Options): Promise<void> {
  app.setErrorHandler((err, req, reply) => {
    const de = fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger);
    return sendProblem(reply, req, de, opts.errorsBaseUrl);
  });

  registerJsonBodyParser(app);
  registerEventRoutes(app, opts.deps);
  registerCatalogItemRoutes(app, opts.deps);
  registerToolsRoutes(app, opts.deps);

  app.get('/api/v1/health', async () => ({ ok: true, version: opts.serviceVersion, serverTime: opts.deps.clock.now().toISOString() }));
  // Readiness: 200 when PostgreSQL (migrations current) and Redis (when configured) answer; 503 problem
  // naming what fails, and 503 for good once the process drains (README "Probes").
  app.get('/api/v1/ready', async (req, reply) => {
    const r = await opts.deps.readiness.check();
    if (r.ready) return reply.header('cache-control', 'no-store').send({ ok: true, version: opts.serviceVersion, checks: r.checks });
    const detail = r.draining ? 'the process is shutting down' : `not ready: ${r.failing.join(', ')} failing`;
    reply.header('cache-control', 'no-store');
    return sendProblem(reply, req, new DomainError('unavailable', detail, { code: 'not_ready', retryAfterSeconds: 5, extra: { failing: r.failing, checks: r.checks } }), opts.errorsBaseUrl);
  });

  const openapi = JSON.stringify(buildOpenApi(opts.publicBaseUrl));
  app.get('/api/v1/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(openapi));
  app.get('/api/v1/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(DOCS_HTML));
  app.get('/api/v1/docs/assets/init.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(DOCS_INIT));
  app.get<{ Params: { file: string } }>('/api/v1/docs/assets/:file', async (req, reply) => {
    const type = ASSETS[req.params.file];
    if (!type) return reply.callNotFound();
    return reply.type(type).header('cache-control', 'public, max-age=86400').send(readFileSync(path.join(swaggerDir, req.params.file)));
  });
}
