// GET /metrics (docs/metrics.md): Prometheus text format, the values move with the
// traffic of every surface, every metric the shipped Grafana dashboard and alert rules name exists,
// each service instance has its own registry, and METRICS_PORT moves /metrics off the main listener.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectError, Code, createClient } from '@connectrpc/connect';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { loadConfig } from '../../../src/config.js';
import { event, http, newPersonalToken, newUser, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { bearer, closeSessions, eventClient, protoEvent, transportFor } from '../../helpers/connect.js';
import { startReceiver, until } from '../nudges/receiver.js';
import { call, mcp, newAgent } from '../mcp/rpc.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (the subset prom-client writes: no timestamps). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Sum of the samples of `name` whose labels include `labels`. */
function sum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

async function scrape(url: string): Promise<{ status: number; contentType: string | null; samples: Sample[]; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), samples: res.status === 200 ? parse(text) : [], text };
}

/**
 * Metric names a PromQL expression selects: identifiers outside label matchers, ranges, grouping
 * clauses and strings that are not function calls or keywords (`label_values(metric, label)`: the metric).
 */
function promqlMetricNames(expr: string): string[] {
  const labelValues = [...expr.matchAll(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,/g)].map((m) => m[1]!);
  if (labelValues.length > 0) return labelValues;
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\{[^}]*\}|\$\w+/g, '');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);
  return [...bare.matchAll(/(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()/g)].map((m) => m[1]!).filter((n) => !keywords.has(n.toLowerCase()));
}

/** Every PromQL expression of the dashboard: panel targets and template variable queries. */
function dashboardExpressions(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) dashboardExpressions(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'expr' || k === 'definition') && typeof v === 'string') out.push(v);
      else if (k === 'query' && typeof v === 'string' && v.includes('(')) out.push(v);
      else dashboardExpressions(v, out);
    }
  }
  return out;
}

/** The `expr:` values of an alert rule file (one line, or a `|` / `>` block). */
function alertExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!m) continue;
    if (!/^[|>]-?$/.test(m[2]!)) {
      out.push(m[2]!);
      continue;
    }
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j]!.trim() === '' || lines[j]!.search(/\S/) > m[1]!.length); j++) block.push(lines[j]!.trim());
    out.push(block.join(' '));
  }
  return out;
}

/** Series Prometheus makes itself for every target (not in any scrape). */
const SYNTHETIC = new Set(['up']);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

describe('GET /metrics', () => {
  it('answers the Prometheus text format 0.0.4 with default process metrics and event-loop lag, without credentials', async () => {
    const r = await scrape(`${h.baseUrl}/metrics`);
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const names = new Set(r.samples.map((s) => s.name));
    for (const n of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'fluxdesk_build_info',
    ])
      expect(names, n).toContain(n);
    expect(sum(r.samples, 'fluxdesk_build_info', { version: '0.25.935' })).toBe(1);
    // The PostgreSQL pool (one in use at most while idle) and its size.
    expect(sum(r.samples, 'fluxdesk_db_pool_max')).toBe(20);
    expect(names).toContain('fluxdesk_db_pool_waiting');
    expect(r.samples.some((s) => s.name === 'fluxdesk_db_pool_connections' && s.labels.state === 'in_use')).toBe(true);
    // The nudge queue of pg-boss is counted, and the outbox.
    expect(r.samples.some((s) => s.name === 'fluxdesk_job_queue_jobs' && s.labels.queue === 'nudges' && s.labels.state === 'ready')).toBe(true);
    expect(names).toContain('fluxdesk_nudge_outbox_depth');
    expect(names).toContain('fluxdesk_nudge_outbox_oldest_age_seconds');
  });

  it('moves with a publish, a repeat, a rejected event, a 429, Idempotency-Key replays and conflicts, an MCP call and Connect and gRPC calls', async () => {
    const before = (await scrape(`${h.baseUrl}/metrics`)).samples;
    const t = await newPersonalToken(h);

    const ev = event(h);
    expect((await publish(h, t.token, ev)).status).toBe(202);
    expect((await publish(h, t.token, ev)).status).toBe(200);
    const { title: _title, ...untitled } = event(h);
    const rejected = await publish(h, t.token, untitled);
    expect(rejected.status).toBe(400);
    // The 60/min publish budget: 3 used above; the 61st call is refused.
    for (let i = 0; i < 57; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    const limited = await publish(h, t.token, event(h));
    expect(limited.status).toBe(429);

    // Idempotency-Key: stored, replayed, then the same key with another body (409).
    const k = await newPersonalToken(h);
    const keyed = event(h);
    expect((await publish(h, k.token, keyed, { 'idempotency-key': 'metrics-1' })).status).toBe(202);
    expect((await publish(h, k.token, keyed, { 'idempotency-key': 'metrics-1' })).status).toBe(202);
    expect((await publish(h, k.token, event(h), { 'idempotency-key': 'metrics-1' })).status).toBe(409);

    // A read by id: its route pattern is the label, never the id.
    const read = await http(h, 'GET', `/api/v1/events/${randomUUID()}`, { token: k.token });
    expect(read.status).toBe(404);
    expect((await http(h, 'GET', '/no/such/path')).status).toBe(404);
    // A path that does not decode matches no route either.
    expect((await http(h, 'GET', '/api/v1/catalog/items/%ED%A0%80')).status).toBe(400);

    // MCP: a live tool, and a name that is not one.
    const agent = await newAgent(h);
    expect((await mcp(h, call('whoami'), { token: agent.token })).body.result.isError).toBe(false);
    expect((await mcp(h, call('no_such_tool_x1'), { token: agent.token })).body.error.code).toBe(-32602);

    // Connect (main listener) and gRPC (h2c listener): a publish each, and one refused by validation.
    const c = await newPersonalToken(h);
    expect((await eventClient(h, 'connect', c.token).publish({ event: protoEvent(h) })).created).toBe(true);
    expect((await eventClient(h, 'grpc', c.token).publish({ event: protoEvent(h) })).created).toBe(true);
    const bad = await eventClient(h, 'grpc', c.token)
      .publish({ event: protoEvent(h, { title: '' }) })
      .catch((e: unknown) => e);
    expect(ConnectError.from(bad).code).toBe(Code.InvalidArgument);

    const r = await scrape(`${h.baseUrl}/metrics`);
    const after = r.samples;
    const delta = (name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);

    // Event intake, per surface.
    expect(delta('fluxdesk_events_total', { surface: 'rest', result: 'accepted' })).toBe(1 + 57 + 1);
    expect(delta('fluxdesk_events_total', { surface: 'rest', result: 'deduped' })).toBe(1);
    expect(delta('fluxdesk_events_rejected_total', { surface: 'rest', code: 'schema_invalid' })).toBe(1);
    expect(delta('fluxdesk_events_rejected_total', { surface: 'rest', code: 'rate_limited' })).toBe(1);
    expect(delta('fluxdesk_events_rejected_total', { surface: 'rest', code: 'idempotency_key_reused' })).toBe(1);
    expect(delta('fluxdesk_events_total', { surface: 'connect', result: 'accepted' })).toBe(2);
    expect(delta('fluxdesk_events_rejected_total', { surface: 'connect', code: 'schema_invalid' })).toBe(1);
    // The runner's operations, by outcome.
    expect(delta('fluxdesk_operations_total', { op: 'events.publish', surface: 'rest', outcome: 'ok' })).toBe(1 + 1 + 57 + 2);
    expect(delta('fluxdesk_operations_total', { op: 'events.publish', surface: 'rest', outcome: 'validation' })).toBe(1);
    expect(delta('fluxdesk_operations_total', { op: 'events.publish', surface: 'rest', outcome: 'rate_limited' })).toBe(1);
    expect(delta('fluxdesk_operations_total', { op: 'events.publish', surface: 'rest', outcome: 'conflict' })).toBe(1);
    expect(delta('fluxdesk_operation_duration_seconds_count', { op: 'events.publish', surface: 'rest' })).toBe(64);
    expect(delta('fluxdesk_operation_duration_seconds_bucket', { op: 'events.publish', surface: 'rest', le: '+Inf' })).toBe(64);
    // Rate limit and Idempotency-Key.
    expect(delta('fluxdesk_rate_limit_denials_total', { budget: 'inbound_publish', window: 'minute' })).toBe(1);
    expect(delta('fluxdesk_idempotency_requests_total', { result: 'started' })).toBe(1);
    expect(delta('fluxdesk_idempotency_requests_total', { result: 'replay' })).toBe(1);
    expect(delta('fluxdesk_idempotency_requests_total', { result: 'mismatch' })).toBe(1);
    // HTTP routes by pattern and status class; unknown paths share one label.
    expect(delta('fluxdesk_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/events', status_class: '2xx' })).toBe(1 + 1 + 57 + 2);
    expect(delta('fluxdesk_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/events', status_class: '4xx' })).toBe(3);
    expect(delta('fluxdesk_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/events/:deliveryId', status_class: '4xx' })).toBe(1);
    expect(delta('fluxdesk_http_request_duration_seconds_count', { method: 'GET', route: '(unmatched)', status_class: '4xx' })).toBe(2);
    expect(after.some((s) => s.labels.route?.includes('/no/such') || s.labels.route?.includes('%ED') || /[0-9a-f]{8}-/.test(s.labels.route ?? ''))).toBe(false);
    // Connect procedures (both listeners) by code.
    const publishRpc = 'fluxdesk.events.v1.EventService/Publish';
    expect(delta('fluxdesk_rpc_duration_seconds_count', { procedure: publishRpc, code: 'ok' })).toBe(2);
    expect(delta('fluxdesk_rpc_duration_seconds_count', { procedure: publishRpc, code: 'invalid_argument' })).toBe(1);
    // MCP tools: live names, anything else `other`.
    expect(delta('fluxdesk_mcp_tool_duration_seconds_count', { tool: 'whoami', outcome: 'ok' })).toBe(1);
    expect(delta('fluxdesk_mcp_tool_duration_seconds_count', { tool: 'other', outcome: 'protocol_error' })).toBe(1);
    expect(after.some((s) => s.labels.tool === 'no_such_tool_x1')).toBe(false);
    // The Redis in use answered every call: nothing failed open or closed.
    expect(delta('fluxdesk_store_unavailable_total')).toBe(0);
  });
});

describe('the shipped Grafana dashboard and alert rules', () => {
  it('name only metrics a real scrape has (after the traffic above), histograms by their _bucket/_count series', async () => {
    const scraped = new Set((await scrape(`${h.baseUrl}/metrics`)).samples.map((x) => x.name));
    const dashboard = JSON.parse(readFileSync(new URL('../../../deploy/grafana/fluxdesk-dashboard.json', import.meta.url), 'utf8'));
    const alerts = readFileSync(new URL('../../../deploy/prometheus/alerts.yml', import.meta.url), 'utf8');
    const exprs = [...dashboardExpressions(dashboard), ...alertExpressions(alerts)];
    expect(exprs.length).toBeGreaterThan(40);
    const named = new Set(exprs.flatMap(promqlMetricNames));
    // The extractor itself: functions, labels, keywords and durations are not names.
    expect(promqlMetricNames('histogram_quantile(0.99, sum by (le, route) (rate(a_bucket{route!="x"}[5m]))) > 0.5 and on(job) b offset 5m')).toEqual([
      'a_bucket',
      'b',
    ]);
    expect(promqlMetricNames('label_values(fluxdesk_build_info, instance)')).toEqual(['fluxdesk_build_info']);
    for (const n of [
      'fluxdesk_http_request_duration_seconds_bucket',
      'fluxdesk_events_total',
      'fluxdesk_nudge_outbox_oldest_age_seconds',
      'fluxdesk_db_pool_waiting',
      'fluxdesk_store_unavailable_total',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(named, n).toContain(n);
    }
    const missing = [...named].filter((n) => !scraped.has(n) && !SYNTHETIC.has(n));
    expect(missing).toEqual([]);
  });
});

describe('METRICS_PORT', () => {
  it('is a port (0-65535); absent, /metrics is on PORT', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    for (const bad of ['-1', '65536', 'x', '1.5']) expect(() => loadConfig({ METRICS_PORT: bad }), bad).toThrow(/METRICS_PORT/);
  });

  it('serves /metrics on its own listener only; the main listener answers 404; each service has its own registry', async () => {
    const h2 = await startHarness({ env: { METRICS_PORT: '0' } });
    try {
      const port = h2.svc.metricsPort;
      expect(port).toEqual(expect.any(Number));
      expect(port).not.toBe(h2.svc.port);
      const main = await http(h2, 'GET', '/metrics');
      expect(main.status).toBe(404);
      expect(main.headers.get('content-type')).toContain('application/problem+json');

      const r = await scrape(`http://127.0.0.1:${port}/metrics`);
      expect(r.status).toBe(200);
      expect(r.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(r.samples.some((x) => x.name === 'fluxdesk_build_info')).toBe(true);
      // The first service's events are not in this one's registry.
      expect((await publish(h, (await newPersonalToken(h)).token, event(h))).status).toBe(202);
      expect(sum((await scrape(`${h.baseUrl}/metrics`)).samples, 'fluxdesk_events_total', { surface: 'rest' })).toBeGreaterThan(0);
      expect(sum(r.samples, 'fluxdesk_events_total')).toBe(0);
      // Its own traffic is counted there (the 404 above, by the unmatched route).
      expect(sum(r.samples, 'fluxdesk_http_request_duration_seconds_count', { route: '(unmatched)', status_class: '4xx' })).toBe(1);

      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
      const head = await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'HEAD' });
      expect(head.status).toBe(200);
    } finally {
      await h2.close();
    }
    // Closed with the service.
    await expect(fetch(`http://127.0.0.1:${h2.svc.metricsPort}/metrics`)).rejects.toThrow();
  });
});

describe('Redis unreachable', () => {
  it('counts client errors, the rate limit failing open and Idempotency-Key requests failing closed', async () => {
    // Nothing listens on port 1: every connection attempt is refused.
    const down = await startHarness({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const t = await newPersonalToken(down);
      expect((await publish(down, t.token, event(down))).status).toBe(202);
      const keyed = await publish(down, t.token, event(down), { 'idempotency-key': 'redis-down-1' });
      expect(keyed.status).toBe(503);
      const r = await scrape(`${down.baseUrl}/metrics`);
      expect(sum(r.samples, 'fluxdesk_redis_errors_total')).toBeGreaterThan(0);
      // Both publishes asked the rate limiter (it let them through); the keyed one was then refused.
      expect(sum(r.samples, 'fluxdesk_store_unavailable_total', { store: 'rate_limit', decision: 'fail_open' })).toBe(2);
      expect(sum(r.samples, 'fluxdesk_store_unavailable_total', { store: 'idempotency', decision: 'fail_closed' })).toBe(1);
      expect(sum(r.samples, 'fluxdesk_events_rejected_total', { code: 'idempotency_unavailable' })).toBe(1);
    } finally {
      await down.close();
    }
  });
});

/** A personal token whose owner has a chat destination at `url` (nudges go there). */
async function chatUser(hh: Harness, url: string): Promise<string> {
  const user = await newUser(hh);
  const t = await newPersonalToken(hh, { user });
  const a = await operator<{ token: string }>(hh, 'agent_tokens.create', { email: user.email });
  await createClient(NotificationSettingsService, transportFor(hh, 'connect', [bearer(a.token)])).setChatDestination({ url, style: ChatStyle.SLACK });
  return t.token;
}

describe('nudges', () => {
  it('counts sends by result and dead nudges', async () => {
    const rx = await startReceiver();
    const hn = await startHarness({ env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' } });
    try {
      rx.behave('/gone', { status: 400 });
      const ok = await chatUser(hn, `${rx.url}/chat/ok`);
      const gone = await chatUser(hn, `${rx.url}/gone/x`);
      expect((await publish(hn, ok, event(hn))).status).toBe(202);
      expect((await publish(hn, gone, event(hn))).status).toBe(202);
      // The worker's progress is polled (no time rule involved).
      const samples = await until('both sends counted', async () => {
        const r = (await scrape(`${hn.baseUrl}/metrics`)).samples;
        return sum(r, 'fluxdesk_nudge_sends_total', { channel: 'chat' }) >= 2 && r;
      });
      expect(sum(samples, 'fluxdesk_nudge_sends_total', { channel: 'chat', result: 'completed' })).toBe(1);
      // A 400 is a refusal for good: dead at once, no retry.
      expect(sum(samples, 'fluxdesk_nudge_sends_total', { channel: 'chat', result: 'dead' })).toBe(1);
      expect(sum(samples, 'fluxdesk_nudges_dead_total', { channel: 'chat' })).toBe(1);
      expect(sum(samples, 'fluxdesk_nudge_sends_total', { channel: 'push' })).toBe(0);
    } finally {
      closeSessions();
      await hn.close();
      await rx.close();
    }
  });

  it('reports the outbox depth and the age of its oldest nudge (service clock) while no worker sends', async () => {
    const hn = await startHarness({ env: { WORKER: 'off' } });
    try {
      const token = await chatUser(hn, 'https://chat.example.com/hook');
      expect((await publish(hn, token, event(hn))).status).toBe(202);
      expect((await publish(hn, token, event(hn))).status).toBe(202);
      hn.clock.advance(120_000);
      const r = (await scrape(`${hn.baseUrl}/metrics`)).samples;
      expect(sum(r, 'fluxdesk_nudge_outbox_depth')).toBe(2);
      const age = sum(r, 'fluxdesk_nudge_outbox_oldest_age_seconds');
      expect(age).toBeGreaterThanOrEqual(120);
      expect(age).toBeLessThan(180);
      // No worker ever ran on this database: no pg-boss queues, and the scrape still answers.
      expect(r.some((x) => x.name === 'fluxdesk_job_queue_jobs')).toBe(false);
      expect(sum(r, 'fluxdesk_metrics_probe_failures_total')).toBe(0);
    } finally {
      closeSessions();
      await hn.close();
    }
  });
});
