// Child process of tracing.test.ts ("tracing off"): records every module this process resolves,
// starts the service twice (no OTEL_* variable at all; then OTEL_SDK_DISABLED=true with an endpoint
// pointing at the test's receiver), publishes once on each, and prints what OpenTelemetry code was
// loaded as one JSON line (the OpenTelemetry SDK, exporter, @fastify/otel or infra/tracing/otel.ts). The hook is registered before any of the service's modules is imported.
import { registerHooks } from 'node:module';

const loaded: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    // @opentelemetry/api itself is not counted: prom-client (metrics) requires it for exemplars.
    if (/@opentelemetry\/(?!api\/)|@fastify\/otel|\/infra\/tracing\/otel\./.test(r.url)) loaded.push(r.url);
    return r;
  },
});

const { event, newPersonalToken, publish, startHarness } = await import('../../helpers/harness.js');

const published: number[] = [];
/** Whether a service got a tracer (deps.tracer). */
const traced: boolean[] = [];
for (const env of [
  {} as Record<string, string>,
  { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: process.env.TRACE_RECEIVER!, OTEL_BSP_SCHEDULE_DELAY: '10' },
]) {
  const h = await startHarness({ env });
  traced.push(h.svc.deps.tracer !== null);
  try {
    const { token } = await newPersonalToken(h);
    const res = await publish(h, token, event(h), { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    published.push(res.status);
  } finally {
    await h.close();
  }
}
console.log(JSON.stringify({ loaded, traced, published }));
