// POST /api/v1/integrations/alertmanager with Alertmanager's webhook payload (version "4"): each
// alert one event through the publish operation of POST /api/v1/events. Payload-level tests through
// real HTTP; the real Alertmanager is alertmanager.real.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, newPersonalToken, publish, event, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, sql } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const PATH = '/api/v1/integrations/alertmanager';
const fp = () => randomBytes(8).toString('hex');
const ago = (ms: number) => new Date(h.clock.now().getTime() - ms).toISOString();

function alert(over: Record<string, unknown> = {}): Record<string, any> {
  return {
    status: 'firing',
    labels: { alertname: 'HighLatency', severity: 'critical', instance: 'api-1:9100', job: 'api' },
    annotations: { summary: 'p99 latency above 2s on api-1', description: 'The p99 latency of api-1 has been above 2 s for 10 minutes.' },
    startsAt: ago(10 * 60_000),
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'https://prometheus.example.test/graph?g0.expr=latency',
    fingerprint: fp(),
    ...over,
  };
}

function payload(alerts: unknown[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: '4',
    groupKey: '{}:{alertname="HighLatency"}',
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'fluxdesk',
    groupLabels: { alertname: 'HighLatency' },
    commonLabels: { alertname: 'HighLatency' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example.test:9093',
    alerts,
    ...over,
  };
}

const post = (token: string, body: unknown) => http(h, 'POST', PATH, { token, body });
const deliveries = (tokenId: string) =>
  sql(
    h,
    `select d.id, d.event_id, d.event_type, d.severity, d.title, d.summary, d.external_url, d.external_status, d.labels, d.fire_count, d.occurred_at, n.user_id as inbox_user
       from deliveries d left join notifications n on n.delivery_id = d.id where d.token_id = ? order by d.event_id`,
    [tokenId],
  );

describe('POST /api/v1/integrations/alertmanager', () => {
  it('a v4 payload with 2 alerts: 2 inbox items with the mapped fields; the same payload dedups; resolved moves them to resolved with fireCount 2', async () => {
    const t = await newPersonalToken(h);
    const a1 = alert();
    const a2 = alert({
      labels: { alertname: 'Disk Full!', severity: 'warning', mountpoint: '/var' },
      annotations: { description: 'x'.repeat(700) },
      generatorURL: 'http://prometheus.internal/graph',
    });
    const r = await post(t.token, payload([a1, a2]));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ receiver: 'alertmanager', accepted: 2, deduped: 0, truncatedAlerts: 0 });
    expect(r.body.results.map((x: any) => [x.index, x.fingerprint, x.outcome, x.fireCount])).toEqual([
      [0, a1.fingerprint, 'accepted', 1],
      [1, a2.fingerprint, 'accepted', 1],
    ]);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('58');

    const rows = await deliveries(t.tokenId);
    expect(rows).toHaveLength(2);
    const byFp = (f: string) => rows.find((x: any) => x.event_id.includes(f));
    const d1 = byFp(a1.fingerprint);
    expect(d1).toMatchObject({
      event_id: `am-${a1.fingerprint}-${Math.floor(Date.parse(a1.startsAt) / 1000)}`,
      event_type: 'personal.alert.highlatency',
      severity: 'critical',
      title: 'p99 latency above 2s on api-1',
      summary: a1.annotations.description,
      external_url: a1.generatorURL,
      external_status: 'firing',
      fire_count: 1,
      inbox_user: t.user.userId,
    });
    expect(d1.labels).toEqual({ alertname: 'HighLatency', severity: 'critical', instance: 'api-1:9100', job: 'api' });
    expect(new Date(d1.occurred_at).toISOString()).toBe(a1.startsAt);
    const d2 = byFp(a2.fingerprint);
    // No summary annotation: the alert name; warning -> warn; the description cut to 500; a non-https link dropped.
    expect(d2).toMatchObject({ event_type: 'personal.alert.disk_full', severity: 'warn', title: 'Disk Full!', external_url: null });
    expect(d2.summary).toHaveLength(500);

    const again = await post(t.token, payload([a1, a2]));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ accepted: 0, deduped: 2 });

    const endsAt = ago(30_000);
    const resolved = await post(
      t.token,
      payload(
        [
          { ...a1, status: 'resolved', endsAt },
          { ...a2, status: 'resolved', endsAt },
        ],
        { status: 'resolved' },
      ),
    );
    expect(resolved.status).toBe(200);
    expect(resolved.body.results.map((x: any) => [x.outcome, x.fireCount, x.externalStatus])).toEqual([
      ['deduped', 3, 'resolved'],
      ['deduped', 3, 'resolved'],
    ]);
    const after = await deliveries(t.tokenId);
    expect(after.map((x: any) => [x.external_status, x.fire_count])).toEqual([
      ['resolved', 3],
      ['resolved', 3],
    ]);
  });

  it('firing then resolved of one episode: fireCount 2; a later episode (new startsAt) is a new delivery', async () => {
    const t = await newPersonalToken(h);
    const a = alert();
    expect((await post(t.token, payload([a]))).body.results[0]).toMatchObject({ outcome: 'accepted', fireCount: 1 });
    const res = await post(t.token, payload([{ ...a, status: 'resolved', endsAt: ago(1000) }]));
    expect(res.body.results[0]).toMatchObject({ outcome: 'deduped', fireCount: 2, externalStatus: 'resolved' });
    const next = await post(t.token, payload([{ ...a, startsAt: ago(500) }]));
    expect(next.body.results[0]).toMatchObject({ outcome: 'accepted', fireCount: 1 });
  });

  it('an invalid alert is named (400 alerts_refused); the valid one is published, nothing is written for the refused one', async () => {
    const t = await newPersonalToken(h);
    const good = alert();
    const bad = alert({ fingerprint: 'not/a valid id', status: 'exploded' });
    const worse = alert({ labels: { alertname: 'X' }, startsAt: 'yesterday' });
    const r = await post(t.token, payload([good, bad, worse]));
    expect(r.status, r.text).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ status: 400, code: 'alerts_refused' });
    expect(r.body.type).toMatch(/\/validation-failed$/);
    expect(r.body.results.map((x: any) => x.outcome)).toEqual(['accepted', 'refused', 'refused']);
    expect(Object.keys(r.body.fieldErrors)).toEqual(expect.arrayContaining(['alerts[1].status', 'alerts[2].startsAt']));
    // A refused alert that maps but fails the event's own rules is named by the event field.
    const bad2 = alert({ fingerprint: 'has space' });
    const r2 = await post(t.token, payload([bad2]));
    expect(r2.status).toBe(400);
    expect(r2.body.errors).toEqual([expect.objectContaining({ field: 'alerts[0].event_id' })]);
    const rows = await deliveries(t.tokenId);
    expect(rows.map((x: any) => x.event_id)).toEqual([expect.stringContaining(good.fingerprint)]);
    // Audited as POST /api/v1/events audits a refused event.
    const audit = await sql(h, `select count(*)::int as n from audit_log where token_id = ? and action = 'inbound.event.rejected'`, [t.tokenId]);
    expect(audit[0].n).toBeGreaterThanOrEqual(1);
  });

  it('a token of another kind is refused: tools-token 401 token_mismatch, agent-style and unknown tokens 401', async () => {
    const tools = await adminTools(h);
    const r = await post(tools.token, payload([alert()]));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('token_mismatch');
    expect((await post(`sk-svc-${'a'.repeat(40)}`, payload([alert()]))).status).toBe(401);
    expect((await http(h, 'POST', PATH, { body: payload([alert()]) })).status).toBe(401);
  });

  it("a claimed token's alerts go under its integrator's prefix", async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const claim = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: emp.email } });
    expect(claim.status, claim.text).toBe(200);
    const r = await post(claim.body.token, payload([alert()]));
    expect(r.status, r.text).toBe(200);
    expect(r.body.results[0].eventType).toBe(`${tools.prefix}alert.highlatency`);
  });

  it('429 with Retry-After when the per-minute window cannot take the whole payload; nothing written; a re-send later dedups', async () => {
    const t = await newPersonalToken(h);
    for (let i = 0; i < 50; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    const alerts = Array.from({ length: 11 }, () => alert());
    const r = await post(t.token, payload(alerts));
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('10');
    expect(await sql(h, `select id from deliveries where token_id = ? and event_id like 'am-%'`, [t.tokenId])).toEqual([]);
    // Ten fit.
    const ten = await post(t.token, payload(alerts.slice(0, 10)));
    expect(ten.status).toBe(200);
    h.clock.advance(61_000);
    const later = await post(t.token, payload(alerts));
    expect(later.status, later.text).toBe(200);
    expect(later.body).toMatchObject({ accepted: 1, deduped: 10 });
  });

  it('hostile input: NUL in labels, __proto__ keys, 10,000 alerts, deep nesting, wrong shapes: a clear 4xx, never 5xx', async () => {
    const t = await newPersonalToken(h);
    const nul = await post(t.token, payload([alert({ labels: { alertname: 'A\u0000B' } })]));
    expect(nul.status).toBe(400);
    expect(nul.body.fieldErrors['alerts[0].labels.alertname']).toBeDefined();

    const proto = await http(h, 'POST', PATH, {
      token: t.token,
      rawBody: `{"version":"4","alerts":[{"status":"firing","labels":{"__proto__":{"x":"1"}},"startsAt":"${ago(1000)}","fingerprint":"ab"}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(400);
    expect(proto.body.code).toBe('forbidden_key');

    const many = await post(t.token, payload(Array.from({ length: 10_000 }, () => ({ status: 'firing' }))));
    expect(many.status).toBe(400);
    expect(many.body.fieldErrors.alerts).toBeDefined();

    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const nested = await post(t.token, payload([alert({ labels: deep })]));
    expect(nested.status).toBe(400);
    expect(nested.body.code).toBe('too_deep');

    const shallowDeep = await post(t.token, payload([alert({ labels: { alertname: { a: { b: 'c' } } }, annotations: [1, 2] })]));
    expect(shallowDeep.status).toBe(400);
    expect(shallowDeep.body.code).toBe('alerts_refused');

    for (const body of [[], 'x', { alerts: 'no' }, { alerts: [] }, { alerts: [null, 1, 'a'] }]) {
      const r = await post(t.token, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const huge = await http(h, 'POST', PATH, {
      token: t.token,
      rawBody: JSON.stringify(payload([alert({ annotations: { description: 'y'.repeat(300_000) } })])),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    expect(await sql(h, `select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });

  it('long alert names and many labels are cut to the limits; occurred_at is clamped into the last 24 hours', async () => {
    const t = await newPersonalToken(h);
    const labels: Record<string, string> = { alertname: `Very Long Alert Name ${'z'.repeat(100)}`, severity: 'info' };
    for (let i = 0; i < 30; i++) labels[`k${String(i).padStart(2, '0')}${'q'.repeat(100)}`] = 'v'.repeat(200);
    const r = await post(
      t.token,
      payload([alert({ labels, startsAt: ago(3 * 24 * 60 * 60_000), annotations: { summary: `line one\nline two ${'t'.repeat(300)}` } })]),
    );
    expect(r.status, r.text).toBe(200);
    const [d] = await deliveries(t.tokenId);
    expect(d.event_type.length).toBe(60);
    expect(d.event_type.startsWith('personal.alert.very_long_alert_name_')).toBe(true);
    expect(Object.keys(d.labels)).toHaveLength(20);
    // alertname and severity are kept first (jsonb stores keys in its own order).
    expect(Object.keys(d.labels)).toEqual(expect.arrayContaining(['alertname', 'severity']));
    for (const [k, v] of Object.entries(d.labels)) {
      expect(k.length).toBeLessThanOrEqual(80);
      expect((v as string).length).toBeLessThanOrEqual(80);
    }
    expect(d.title.length).toBe(200);
    expect(d.title.startsWith('line one line two')).toBe(true);
    const occurred = new Date(d.occurred_at).getTime();
    expect(occurred).toBeGreaterThan(h.clock.now().getTime() - 24 * 60 * 60_000);
  });
});
