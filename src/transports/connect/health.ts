// grpc.health.v1.Health, following readiness (src/app/readiness.ts): SERVING while PostgreSQL, its
// migrations and Redis (when configured) answer; NOT_SERVING when one fails or once the process drains.
// A Watch stream is told at once when draining starts and then ends, so a stop never waits for an
// idle client; between changes it re-checks every WATCH_RECHECK_MS.
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../../gen/grpc/health/v1/health_pb.js';
import type { AppDeps } from '../../app/deps.js';

const WATCH_RECHECK_MS = 5_000;

async function servingStatus(deps: AppDeps): Promise<Status> {
  return (await deps.readiness.check()).ready ? Status.SERVING : Status.NOT_SERVING;
}

export function registerHealth(router: ConnectRouter, deps: AppDeps, known: ReadonlySet<string>): void {
  router.service(Health, {
    async check(req) {
      // The name is the caller's (any length): echoed only in part, so the grpc-message trailer stays small.
      if (!known.has(req.service)) throw new ConnectError(`unknown service ${JSON.stringify(req.service.slice(0, 200))}`, Code.NotFound);
      return { status: await servingStatus(deps) };
    },
    async *watch(req, ctx) {
      if (!known.has(req.service)) {
        yield { status: Status.SERVICE_UNKNOWN };
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        return;
      }
      let last = await servingStatus(deps);
      yield { status: last };
      while (!ctx.signal.aborted && !deps.readiness.isDraining) {
        // Wakes on the recheck timer, on drain, or when the client leaves.
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            off();
            ctx.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, WATCH_RECHECK_MS);
          const off = deps.readiness.onDrain(done);
          ctx.signal.addEventListener('abort', done, { once: true });
        });
        if (ctx.signal.aborted) return;
        const now = await servingStatus(deps);
        if (now !== last) yield { status: (last = now) };
      }
    },
  });
}
