// The quiet hours summary across processes: three `npm start` children on one database, each
// running the summary task on its own timer. Warn events published during the user's quiet hours
// are held (pushed false, no chat message); once the quiet hours are cleared, exactly ONE summary
// reaches the chat receiver, whichever process took it.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { runOperator } from '../../../src/transports/cli/operator-socket.js';
import { killChildren, startChild } from '../../helpers/child-service.js';
import { createDatabase, uniqueEmail } from '../../helpers/harness.js';
import { startReceiver, until, type Receiver } from './receiver.js';

const { Client } = pg;

let rx: Receiver;
let db: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  rx = await startReceiver();
  db = await createDatabase();
});
afterEach(() => killChildren());
afterAll(async () => {
  killChildren();
  await db?.drop();
  await rx?.close();
});

const hhmm = (d: Date) => d.toISOString().slice(11, 16);

async function setUp(): Promise<{ inbound: string; agent: string; userId: string; chatPath: string }> {
  const deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off' }, 'test'), { role: 'cli' });
  try {
    const op = async <T>(name: string, input: Record<string, unknown>): Promise<T> => {
      const r = await runOperator(deps, name, input);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.output as T;
    };
    const email = uniqueEmail('quiet');
    const { userId } = await op<{ userId: string }>('users.create', { email, name: 'Quiet' });
    const { token: inbound } = await op<{ token: string }>('tokens.create_personal', { email, label: 'quiet', daily_limit: 1000 });
    const { token: agent } = await op<{ token: string }>('agent_tokens.create', { email, scopes: ['read:inbox', 'write:inbox'] });
    const chatPath = `/chat/quiet-${userId.slice(0, 8)}`;
    // Quiet from an hour ago to an hour ahead (UTC), a chat destination on.
    const now = Date.now();
    await deps.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, quiet_start, quiet_end, quiet_tz, quiet_days, updated_at)
         values (?, '{critical,warn}', true, ?, 'slack', ?::time, ?::time, 'UTC', '{}', now())`,
        [userId, `${rx.url}${chatPath}`, hhmm(new Date(now - 3_600_000)), hhmm(new Date(now + 3_600_000))],
      );
    return { inbound, agent, userId, chatPath };
  } finally {
    await deps.close();
  }
}

it('three processes: warn events held during quiet hours, then exactly one summary', async () => {
  const p = await setUp();
  const env = { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' };
  const children = await Promise.all([startChild(db.url, env), startChild(db.url, env), startChild(db.url, env)]);
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

  const sql = new Client({ connectionString: db.url });
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

    const hit = await until('the summary', () => rx.hitsFor(p.chatPath)[0], 30_000);
    expect(JSON.parse(hit.body.toString()).text).toContain('3 arrived while quiet: 3 warn');
    expect(String(hit.headers['idempotency-key'])).toMatch(/^[0-9a-f-]{36}:chat:summary$/);
    // The held rows went in the same commit as the summary's outbox row: no process can sum them
    // up again. Once the outbox is drained, exactly one message went out.
    expect((await sql.query('select count(*)::int as n from nudge_held where user_id = $1', [p.userId])).rows[0].n).toBe(0);
    await until('an empty outbox', async () => (await sql.query('select count(*)::int as n from nudge_outbox where user_id = $1', [p.userId])).rows[0].n === 0);
  } finally {
    await sql.end();
  }
  expect(rx.hitsFor(p.chatPath)).toHaveLength(1);
}, 120_000);
