// A REAL Prometheus Alertmanager (Debian package prometheus-alertmanager; .ci/run installs it) on
// loopback, with a webhook receiver pointed at the harness's /api/v1/integrations/alertmanager and
// the personal token read from a credentials_file. Alerts posted to its API (POST /api/v2/alerts)
// must arrive as inbox items; posted again with endsAt in the past, they must turn resolved with
// fireCount 2. No skip: a missing binary fails the test.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPersonalToken, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { sql } from '../../helpers/tools.js';

const BINARY = '/usr/bin/prometheus-alertmanager';

let h: Harness;
let am: ChildProcess | undefined;
let dir: string;
let amUrl: string;
let t: TestToken;
let amLog = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a value (not undefined), every 200 ms, at most `timeoutMs`. */
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; alertmanager log:\n${amLog.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  // Fails, never skips: CI installs the package (.ci/run).
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: apt-get install -y prometheus-alertmanager`);
  h = await startHarness();
  t = await newPersonalToken(h);
  dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-am-'));
  const credentials = path.join(dir, 'fluxdesk-token');
  writeFileSync(credentials, t.token, { mode: 0o600 });
  // The configuration the served inbound protocol text recommends, with short timings for a test.
  writeFileSync(
    path.join(dir, 'alertmanager.yml'),
    [
      'route:',
      '  receiver: fluxdesk',
      "  group_by: ['alertname']",
      '  group_wait: 1s',
      '  group_interval: 1s',
      '  repeat_interval: 1h',
      'receivers:',
      '  - name: fluxdesk',
      '    webhook_configs:',
      `      - url: ${h.baseUrl}/api/v1/integrations/alertmanager`,
      '        send_resolved: true',
      '        max_alerts: 60',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials_file: ${credentials}`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  amUrl = `http://127.0.0.1:${port}`;
  am = spawn(
    BINARY,
    [
      `--config.file=${path.join(dir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=debug',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  am.stdout?.on('data', (b: Buffer) => (amLog += b.toString()));
  am.stderr?.on('data', (b: Buffer) => (amLog += b.toString()));
  await until('alertmanager ready', 20_000, async () => ((await fetch(`${amUrl}/-/ready`)).ok ? true : undefined));
}, 60_000);

afterAll(async () => {
  if (am && am.exitCode === null) {
    const exited = new Promise((r) => am!.once('exit', r));
    am.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (am.exitCode === null) am.kill('SIGKILL');
  }
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const postAlerts = async (alerts: unknown[]) => {
  const r = await fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
  expect(r.status, await r.text()).toBe(200);
};

const rows = () =>
  sql(
    h,
    `select d.event_id, d.event_type, d.severity, d.title, d.summary, d.external_url, d.external_status, d.fire_count, n.user_id as inbox_user
       from deliveries d left join notifications n on n.delivery_id = d.id where d.token_id = ? order by d.title`,
    [t.tokenId],
  );

describe('a real Alertmanager delivers to POST /api/v1/integrations/alertmanager', () => {
  it('two alerts arrive as inbox items; resolved, they turn resolved with fireCount 2', async () => {
    const startsAt = new Date(Date.now() - 5 * 60_000).toISOString();
    const alerts = [
      {
        labels: { alertname: 'ApiDown', severity: 'critical', instance: 'api-1' },
        annotations: { summary: 'api-1 is down', description: 'No scrape for 5 minutes.' },
        startsAt,
        generatorURL: 'https://prometheus.example.test/graph?g0.expr=up',
      },
      {
        labels: { alertname: 'ApiDown', severity: 'critical', instance: 'api-2' },
        annotations: { summary: 'api-2 is down' },
        startsAt,
        generatorURL: 'http://prometheus.internal/graph',
      },
    ];
    await postAlerts(alerts);
    const firing = await until('two inbox items', 30_000, async () => {
      const r = await rows();
      return r.length === 2 && r.every((x: any) => x.inbox_user === t.user.userId) ? r : undefined;
    });
    // Alertmanager delivers at least once: on a loaded machine it may send a group again before it
    // sees the first answer, which is a repeat of the same delivery (one row each, fireCount grows).
    expect(firing.map((x: any) => [x.title, x.event_type, x.severity, x.external_status])).toEqual([
      ['api-1 is down', 'personal.alert.apidown', 'critical', 'firing'],
      ['api-2 is down', 'personal.alert.apidown', 'critical', 'firing'],
    ]);
    for (const x of firing) expect(x.fire_count).toBeGreaterThanOrEqual(1);
    expect(firing[0]).toMatchObject({ summary: 'No scrape for 5 minutes.', external_url: 'https://prometheus.example.test/graph?g0.expr=up' });
    expect(firing[1].external_url).toBeNull();
    for (const x of firing) expect(x.event_id).toMatch(/^am-[0-9a-f]{16}-\d+$/);

    const endsAt = new Date(Date.now() - 1000).toISOString();
    await postAlerts(alerts.map((a) => ({ ...a, endsAt })));
    const resolved = await until('both resolved', 30_000, async () => {
      const r = await rows();
      return r.length === 2 && r.every((x: any) => x.external_status === 'resolved') ? r : undefined;
    });
    expect(resolved.map((x: any) => [x.title, x.external_status])).toEqual([
      ['api-1 is down', 'resolved'],
      ['api-2 is down', 'resolved'],
    ]);
    // The resolve is a repeat of each delivery: one more fire than it had while firing.
    resolved.forEach((x: any, i: number) => {
      expect(x.fire_count).toBeGreaterThan(firing[i].fire_count);
    });
    expect(resolved.map((x: any) => x.event_id)).toEqual(firing.map((x: any) => x.event_id));
  }, 90_000);
});
