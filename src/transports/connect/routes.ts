// Connect services (used by both listeners): EventService and grpc.health.v1.Health.
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import type { AppDeps } from '../../app/deps.js';
import { runOperation } from '../../app/run-operation.js';
import type { Logger, Operation } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { publishEvent } from '../../domain/events/publish-event.js';
import { getDelivery } from '../../domain/events/get-delivery.js';
import { resolveDelivery } from '../../domain/events/resolve-delivery.js';
import { supplementDelivery } from '../../domain/events/supplement-delivery.js';
import { deliveryToProto, inboundEventToJson } from './mappers.js';
import { toConnectError } from './errors.js';
import { requestIdFrom } from '../http/request-id.js';

/** `inputField`: the request field holding the operation input (violations are reported under it). */
async function call<I, O>(deps: AppDeps, op: Operation<I, O, any>, input: unknown, hctx: HandlerContext, inputField?: string): Promise<O> {
  const requestId = requestIdFrom(hctx.requestHeader.get('x-request-id') ?? undefined);
  hctx.responseHeader.set('x-request-id', requestId);
  try {
    const r = await runOperation(deps, op, {
      surface: 'connect',
      channel: 'v1',
      requestId,
      authorization: hctx.requestHeader.get('authorization') ?? undefined,
      idempotencyKey: hctx.requestHeader.get('idempotency-key') ?? undefined,
      input,
      log: deps.log.child({ requestId, procedure: hctx.method.name }) as Logger,
    });
    if (r.rateLimit) {
      hctx.responseHeader.set('x-ratelimit-limit', String(r.rateLimit.limit));
      hctx.responseHeader.set('x-ratelimit-remaining', String(r.rateLimit.remaining));
      hctx.responseHeader.set('x-ratelimit-reset', String(r.rateLimit.resetAtUnix));
    }
    return r.output;
  } catch (err) {
    throw err instanceof DomainError ? toConnectError(err, inputField) : err;
  }
}

export function connectRoutes(deps: AppDeps) {
  return (router: ConnectRouter): void => {
    router.service(EventService, {
      async publish(req, ctx) {
        const out = await call(deps, publishEvent, inboundEventToJson(req.event), ctx, 'event');
        return { delivery: deliveryToProto(out.delivery), created: out.created };
      },
      async get(req, ctx) {
        return { delivery: deliveryToProto(await call(deps, getDelivery, { delivery_id: req.deliveryId }, ctx)) };
      },
      async resolve(req, ctx) {
        const input = req.resolutionNote === undefined ? { delivery_id: req.deliveryId } : { delivery_id: req.deliveryId, resolution_note: req.resolutionNote };
        return { delivery: deliveryToProto(await call(deps, resolveDelivery, input, ctx)) };
      },
      async supplement(req, ctx) {
        return { delivery: deliveryToProto(await call(deps, supplementDelivery, { delivery_id: req.deliveryId, markdown_body: req.markdownBody }, ctx)) };
      },
    });

    const KNOWN = new Set(['', 'fluxdesk.events.v1.EventService', 'grpc.health.v1.Health']);
    router.service(Health, {
      async check(req) {
        if (!KNOWN.has(req.service)) throw new ConnectError(`unknown service ${req.service}`, Code.NotFound);
        return { status: HealthCheckResponse_ServingStatus.SERVING };
      },
      async *watch(req, ctx) {
        yield { status: KNOWN.has(req.service) ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
  };
}
