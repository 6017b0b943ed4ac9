// The snooze wake in real time across processes: `npm start` children on one database, a snooze
// of 2 s made through one of them, that process killed (kill -9) and started again meanwhile. The
// row comes back to the Inbox within 10 s of its time and its owner is nudged exactly once.
import pg from 'pg';
import { expect, it } from 'vitest';
import { chatUser, childWorld, kill9, startChild } from '../../helpers/child-service.js';
import { until } from '../nudges/receiver.js';

const { Client } = pg;

const world = childWorld();

const mcpCall = async (baseUrl: string, token: string, name: string, args: Record<string, unknown>) => {
  const r = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  expect(r.status).toBe(200);
  return JSON.parse(((await r.json()) as any).result.content[0].text);
};

it('a 2 s snooze comes back within 10 s and nudges once, with a process killed and restarted in between', async () => {
  const p = await chatUser(world.db.url, world.rx.url, 'wake');
  // A 5 s outbox lease: a row the killed process held (its event nudge still being sent when the
  // kill came, on a loaded machine) is sent again by another process within seconds, not after
  // the default minute, so "the outbox drains" below is about the wake alone.
  const env = { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50', NUDGE_JOB_EXPIRE_S: '5' };
  const [a, b] = await Promise.all([startChild(world.db.url, env), startChild(world.db.url, env)]);
  const published = await fetch(`${a.baseUrl}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.inbound}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      spec_version: '2',
      event_id: `wake-${Date.now()}`,
      event_type: 'personal.wake.test',
      severity: 'warn',
      title: 'Wake me',
      occurred_at: new Date(Date.now() - 1000).toISOString(),
    }),
  });
  expect(published.status).toBe(202);
  const [item] = (await mcpCall(b.baseUrl, p.agent, 'list_inbox', {})).items;
  const due = Date.now() + 2_000;
  await mcpCall(a.baseUrl, p.agent, 'snooze_notification', { notificationId: item.id, until: new Date(due).toISOString() });
  await kill9(a);
  const restarted = startChild(world.db.url, env);

  const snoozeHits = () => world.rx.hitsFor(p.chatPath).filter((x) => String(x.headers['idempotency-key']).includes(':snooze:'));
  const hit = await until('the wake nudge', () => snoozeHits()[0], 15_000);
  expect(hit.at - due).toBeLessThan(10_000);
  expect(JSON.parse(hit.body.toString()).text).toContain('Back from snooze: Wake me');
  await restarted;
  const back = await mcpCall(b.baseUrl, p.agent, 'list_inbox', {});
  expect(back.items[0]).toMatchObject({ id: item.id, state: 'inbox', read: false });
  // The row is no longer snoozed, so no later pass can wake it again; once the outbox is drained,
  // exactly one wake nudge went out.
  const sql = new Client({ connectionString: world.db.url });
  await sql.connect();
  try {
    await until('an empty outbox', async () => (await sql.query('select count(*)::int as n from nudge_outbox where user_id = $1', [p.userId])).rows[0].n === 0);
    expect((await sql.query('select state, snoozed_until from notifications where id = $1', [item.id])).rows).toEqual([
      { state: 'inbox', snoozed_until: null },
    ]);
  } finally {
    await sql.end();
  }
  expect(snoozeHits()).toHaveLength(1);
}, 90_000);
