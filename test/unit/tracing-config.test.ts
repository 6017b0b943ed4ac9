// Which OTEL_* variables turn tracing on, and how config.ts reads them (README "Tracing").
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const tracing = (env: Record<string, string>) => loadConfig(env).tracing;

describe('tracing configuration', () => {
  it('is off with no OTEL_* variable, with OTEL_SDK_DISABLED=true, and with OTEL_TRACES_EXPORTER=none', () => {
    expect(tracing({})).toBeNull();
    expect(tracing({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    // Empty values count as unset (as for every variable).
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeNull();
  });

  it('is on with an endpoint or an exporter; the general endpoint gets /v1/traces, the traces one is used as is', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      exporter: 'otlp',
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'fluxdesk',
      sampler: 'parentbased_always_on',
      samplerArg: 1,
    });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom/path' })?.endpoint).toBe(
      'https://b/custom/path',
    );
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })?.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(tracing({ OTEL_TRACES_EXPORTER: 'console' })?.exporter).toBe('console');
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' })).not.toBeNull();
  });

  it('reads the sampler, service name, headers, timeouts and batch settings', () => {
    const t = tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_SERVICE_NAME: 'fluxdesk-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_EXPORTER_OTLP_HEADERS: 'Api-Key=abc%3D%3D, x-tenant=t1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=t2',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
    });
    expect(t).toMatchObject({
      serviceName: 'fluxdesk-eu',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.1,
      timeoutMs: 3000,
      scheduleDelayMs: 200,
      maxQueueSize: 100,
      maxExportBatchSize: 100,
    });
    // The traces-specific headers win; values are percent-decoded; names are lower-cased.
    expect(t?.headers).toEqual({ 'api-key': 'abc==', 'x-tenant': 't2' });
  });

  it('refuses bad values with a message naming the variable (and never its value)', () => {
    const refused = (env: Record<string, string>, name: string) => {
      expect(() => loadConfig(env)).toThrow(name);
      try {
        loadConfig(env);
      } catch (err) {
        for (const v of Object.values(env)) if (v.length > 6) expect((err as Error).message).not.toContain(v);
      }
    };
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    refused({ OTEL_TRACES_EXPORTER: 'jaeger' }, 'OTEL_TRACES_EXPORTER');
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
    refused({ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG');
    refused({ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER');
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-without-a-key' }, 'OTEL_EXPORTER_OTLP_HEADERS');
  });
});
