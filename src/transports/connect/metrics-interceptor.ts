// Connect / gRPC / gRPC-Web calls that reached their implementation: fluxdesk_rpc_duration_seconds
// by procedure (`fluxdesk.events.v1.EventService/Publish`: the registered methods, a bounded set)
// and code (`ok` or the Connect code name). Calls refused before (request gate, body bounds) are
// counted on the main listener's HTTP histogram by route.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Metrics, RpcMeter } from '../../infra/metrics/metrics.js';

/** `InvalidArgument` -> `invalid_argument`, by code number. */
const CODE_NAMES: readonly string[] = Object.values(Code)
  .filter((v): v is Code => typeof v === 'number')
  .reduce<string[]>((names, code) => {
    names[code] = Code[code].replace(/[A-Z]/g, (c, i: number) => (i > 0 ? '_' : '') + c.toLowerCase());
    return names;
  }, []);

export function metricsInterceptor(metrics: Metrics): Interceptor {
  // One meter per method descriptor, made on its first call.
  const meters = new WeakMap<object, RpcMeter>();
  return (next) => async (req) => {
    let meter = meters.get(req.method);
    if (!meter) meters.set(req.method, (meter = metrics.rpc(`${req.service.typeName}/${req.method.name}`)));
    const started = performance.now();
    try {
      const res = await next(req);
      meter.observe(performance.now() - started, 'ok');
      return res;
    } catch (err) {
      meter.observe(performance.now() - started, CODE_NAMES[ConnectError.from(err).code] ?? 'unknown');
      throw err;
    }
  };
}
