// POST /api/v1/integrations/grafana with Grafana's webhook contact point body (unified alerting,
// version "1"): each alert one event through the publish operation of POST /api/v1/events.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';
import { sql } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const PATH = '/api/v1/integrations/grafana';
const ago = (ms: number) => new Date(h.clock.now().getTime() - ms).toISOString();

function grafanaAlert(over: Record<string, unknown> = {}): Record<string, any> {
  return {
    status: 'firing',
    labels: { alertname: 'CPU usage', grafana_folder: 'Infra', severity: 'warning', host: 'db-1' },
    annotations: { summary: 'CPU above 90% on db-1', description: 'CPU has been above 90% for 5m.' },
    startsAt: ago(5 * 60_000),
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'https://grafana.example.test/alerting/grafana/abc/view?orgId=1',
    fingerprint: randomBytes(8).toString('hex'),
    silenceURL: 'https://grafana.example.test/alerting/silence/new',
    dashboardURL: 'https://grafana.example.test/d/xyz',
    panelURL: 'https://grafana.example.test/d/xyz?viewPanel=2',
    values: { B: 93.5, C: 1 },
    valueString: "[ var='B' labels={host=db-1} value=93.5 ]",
    ...over,
  };
}

function payload(alerts: unknown[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    receiver: 'fluxdesk',
    status: 'firing',
    orgId: 1,
    alerts,
    groupLabels: { alertname: 'CPU usage' },
    commonLabels: { alertname: 'CPU usage' },
    commonAnnotations: {},
    externalURL: 'https://grafana.example.test/',
    version: '1',
    groupKey: '{}/{}:{alertname="CPU usage"}',
    truncatedAlerts: 0,
    title: '[FIRING:1] CPU usage (Infra)',
    state: 'alerting',
    message: '**Firing**\n\nValue: B=93.5',
    ...over,
  };
}

const post = (token: string, body: unknown) => http(h, 'POST', PATH, { token, body });

describe('POST /api/v1/integrations/grafana', () => {
  it('each alert one inbox item with the mapped fields; resolved dedups to resolved with fireCount 2', async () => {
    const t = await newPersonalToken(h);
    const a = grafanaAlert();
    const b = grafanaAlert({ labels: { alertname: 'Memory', severity: 'page' }, annotations: {}, generatorURL: 'ftp://grafana/x' });
    const r = await post(t.token, payload([a, b], { truncatedAlerts: 3 }));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ receiver: 'grafana', accepted: 2, deduped: 0, truncatedAlerts: 3 });
    const rows = await sql(
      h,
      `select d.event_id, d.event_type, d.severity, d.title, d.summary, d.external_url, d.external_status, d.fire_count, n.user_id as inbox_user
         from deliveries d join notifications n on n.delivery_id = d.id where d.token_id = ? order by d.title`,
      [t.tokenId],
    );
    expect(rows).toEqual([
      {
        event_id: `gf-${a.fingerprint}-${Math.floor(Date.parse(a.startsAt) / 1000)}`,
        event_type: 'personal.alert.cpu_usage',
        severity: 'warn',
        title: 'CPU above 90% on db-1',
        summary: 'CPU has been above 90% for 5m.',
        external_url: a.generatorURL,
        external_status: 'firing',
        fire_count: 1,
        inbox_user: t.user.userId,
      },
      expect.objectContaining({ event_type: 'personal.alert.memory', severity: 'info', title: 'Memory', summary: null, external_url: null }),
    ]);
    const res = await post(t.token, payload([{ ...a, status: 'resolved', endsAt: ago(1000) }], { status: 'resolved' }));
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ outcome: 'deduped', fireCount: 2, externalStatus: 'resolved' });
  });

  it('an invalid alert is named; the others are published; hostile bodies are a clear 4xx', async () => {
    const t = await newPersonalToken(h);
    const r = await post(t.token, payload([grafanaAlert(), grafanaAlert({ fingerprint: '' })]));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('alerts_refused');
    expect(r.body.results.map((x: any) => x.outcome)).toEqual(['accepted', 'refused']);
    expect(Object.keys(r.body.fieldErrors)).toEqual(['alerts[1].fingerprint']);
    expect((await post(t.token, payload(Array.from({ length: 61 }, () => grafanaAlert())))).status).toBe(400);
    expect((await post(t.token, payload([grafanaAlert({ valueString: 'a\u0000b' })]))).status).toBe(400);
    expect((await post(t.token, { alerts: [grafanaAlert()], orgId: 'one' })).status).toBe(400);
    const rows = await sql(h, `select count(*)::int as n from deliveries where token_id = ?`, [t.tokenId]);
    expect(rows[0].n).toBe(1);
  });
});
