// REST v1 surface: its own encapsulated plugin with its own error handler (problem+json). Every
// route is registered from its declaration (events.ts, tokens.ts, catalog-items.ts,
// service-routes.ts), the same declarations openapi.ts documents.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { fastifyErrorToDomain, registerJsonBodyParser } from '../http/json-body.js';
import { registerRoutes } from '../http/route-declaration.js';
import { sendProblem } from './problem.js';
import { buildOpenApi, REST_V1_ROUTES } from './openapi.js';
import { serviceRoutes } from './service-routes.js';

export interface RestV1Options {
  deps: AppDeps;
  errorsBaseUrl: string;
  publicBaseUrl: string;
  serviceVersion: string;
}

const REST = { surface: 'rest', channel: 'v1' } as const;

export async function restV1Plugin(app: FastifyInstance, opts: RestV1Options): Promise<void> {
  app.setErrorHandler((err, req, reply) => {
    const de = fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger);
    return sendProblem(reply, req, de, opts.errorsBaseUrl);
  });

  registerJsonBodyParser(app);
  registerRoutes(app, opts.deps, REST_V1_ROUTES, REST);

  // Built on the first request for it (every plugin has registered its routes by then; the start
  // does not pay for it): GET /metrics is documented only when this listener serves it (METRICS_PORT unset).
  let openapi: string | undefined;
  const document = () => (openapi ??= JSON.stringify(buildOpenApi(opts.publicBaseUrl, { metrics: app.hasRoute({ method: 'GET', url: '/metrics' }) })));
  registerRoutes(
    app,
    opts.deps,
    serviceRoutes({ deps: opts.deps, errorsBaseUrl: opts.errorsBaseUrl, serviceVersion: opts.serviceVersion, openapiText: document }),
    REST,
  );
}
