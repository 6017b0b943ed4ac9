// A span per Connect / gRPC / gRPC-Web call, named `package.Service/Method`: a child of the route span
// on the Fastify listener, and of the caller's `traceparent` on the gRPC listener (server.ts makes it
// the active parent there, so the request gate's work joins the same trace).
//
// It also logs, once, an error raised outside the operation runner (a mapper, a handler's own code):
// connect-es answers any error that is not a ConnectError with `internal` and logs nothing. Errors of
// the runner arrive as ConnectErrors (call.ts) and were logged there when unexpected.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from '../../domain/context.js';
import type { FailureInfo, Tracer } from '../../infra/tracing/tracing.js';
import { REQUEST_ID } from './call.js';

/** Server faults mark the span failed; a refused call (invalid_argument, not_found...) is an outcome. */
const FAULTS: ReadonlySet<Code> = new Set([Code.Internal, Code.Unknown, Code.Unavailable, Code.DataLoss, Code.Unimplemented, Code.DeadlineExceeded]);

function rpcFailure(err: unknown): FailureInfo {
  const code = err instanceof ConnectError ? err.code : Code.Internal;
  return { type: Code[code] ?? 'Internal', fault: FAULTS.has(code) };
}

/** `tracer`: deps.tracer (null: tracing off, the errors are still logged). */
export function tracingInterceptor(log: Logger, tracer: Tracer | null): Interceptor {
  return (next) => async (req) => {
    try {
      if (tracer === null) return await next(req);
      return await tracer.inServerSpan(
        `${req.service.typeName}/${req.method.name}`,
        req.header,
        { 'rpc.system.name': 'connectrpc', 'rpc.method': `${req.service.typeName}/${req.method.name}` },
        () => next(req),
        rpcFailure,
      );
    } catch (err) {
      if (!(err instanceof ConnectError)) {
        log.error(
          { err, procedure: `${req.service.typeName}/${req.method.name}`, requestId: req.contextValues.get(REQUEST_ID) },
          'unexpected error outside the operation runner',
        );
      }
      throw err;
    }
  };
}
