// The quiet hours summary across processes: three `npm start` children on one database, each
// running the summary task on its own timer. Warn events published during the user's quiet hours
// are held (pushed false, no chat message); once the quiet hours are cleared, exactly ONE summary
// reaches the chat receiver, whichever process took it.
import pg from 'pg';
import { expect, it } from 'vitest';
import { chatUser, childWorld, startChild } from '../../helpers/child-service.js';
import { until } from './receiver.js';

const { Client } = pg;

const world = childWorld();

const hhmm = (d: Date) => d.toISOString().slice(11, 16);

/** A user quiet from an hour ago to an hour ahead (UTC), chat on. */
const setUp = () => {
  const now = Date.now();
  return chatUser(world.db.url, world.rx.url, 'quiet', {
    quiet_start: ['?::time', hhmm(new Date(now - 3_600_000))],
    quiet_end: ['?::time', hhmm(new Date(now + 3_600_000))],
    quiet_tz: ['?', 'UTC'],
    quiet_days: ["'{}'", undefined],
  });
};

it('three processes: warn events held during quiet hours, then exactly one summary', async () => {
  const p = await setUp();
  const env = { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' };
  const children = await Promise.all([startChild(world.db.url, env), startChild(world.db.url, env), startChild(world.db.url, env)]);
  for (const [i, c] of children.entries()) {
    const r = await fetch(`${c.baseUrl}/api/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.inbound}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        spec_version: '2',
        event_id: `quiet-${Date.now()}-${i}`,
        event_type: 'personal.quiet.test',
        severity: 'warn',
        title: `Held ${i}`,
        occurred_at: new Date(Date.now() - 1000).toISOString(),
      }),
    });
    expect(r.status).toBe(202);
    expect(((await r.json()) as { pushed: boolean }).pushed).toBe(false);
  }

  const sql = new Client({ connectionString: world.db.url });
  await sql.connect();
  try {
    expect((await sql.query('select count(*)::int as n from nudge_held where user_id = $1', [p.userId])).rows[0].n).toBe(3);
    // Clearing the quiet hours (through one process) makes the summary due at every process's next run.
    const cleared = await fetch(`${children[1]!.baseUrl}/fluxdesk.notifications.v1.NotificationSettingsService/SetPreferences`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({ clearQuietHours: true }),
    });
    expect(cleared.status).toBe(200);

    const hit = await until('the summary', () => world.rx.hitsFor(p.chatPath)[0], 30_000);
    expect(JSON.parse(hit.body.toString()).text).toContain('3 arrived while quiet: 3 warn');
    expect(String(hit.headers['idempotency-key'])).toMatch(/^[0-9a-f-]{36}:chat:summary$/);
    // The held rows went in the same commit as the summary's outbox row: no process can sum them
    // up again. Once the outbox is drained, exactly one message went out.
    expect((await sql.query('select count(*)::int as n from nudge_held where user_id = $1', [p.userId])).rows[0].n).toBe(0);
    await until('an empty outbox', async () => (await sql.query('select count(*)::int as n from nudge_outbox where user_id = $1', [p.userId])).rows[0].n === 0);
  } finally {
    await sql.end();
  }
  expect(world.rx.hitsFor(p.chatPath)).toHaveLength(1);
}, 120_000);
