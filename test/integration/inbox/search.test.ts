// The inbox search language through Connect (ListInbox.query, MarkAllDone.query) and MCP
// (list_inbox.query): words as prefixes of title, summary, label values and actor name (case and
// accents ignored), each qualifier and its negation, counts of the view and query, a malformed
// query refused naming its part, and never another user's rows.
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { call, mcp, toolText } from '../mcp/rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const inbox = (token: string): Client<typeof InboxService> => createClient(InboxService, transportFor(h, 'connect', [bearer(token)]));

interface World {
  pt: TestToken;
  ag: AgentUser;
  /** Notification id by the event's key. */
  id: Record<string, string>;
}

/** One user's inbox of six events of every kind the qualifiers tell apart. */
async function world(): Promise<World> {
  const pt = await newPersonalToken(h);
  const grafana = await newPersonalToken(h, { user: pt.user });
  await sql(`update inbound_tokens set label = 'Grafana-Alerts' where id = ?`, [grafana.tokenId]);
  const ag = await withToken(h, pt.user, ['read:inbox', 'write:inbox']);
  const id: Record<string, string> = {};
  const send = async (key: string, token: string, over: Record<string, unknown>) => {
    h.clock.advance(1_000);
    const r = await publish(h, token, event(h, over));
    expect(r.status, r.text).toBe(202);
    id[key] = (await sql('select id from notifications where delivery_id = ?', [r.body.deliveryId]))[0].id;
  };
  await send('deploy', pt.token, {
    title: 'Déploiement échoué sur prod',
    severity: 'critical',
    external_status: 'firing',
    event_type: 'personal.ci.deploy',
    labels: { env: 'production' },
    actor: { email: 'zoe@example.com', name: 'Zoë Müller' },
  });
  await send('build', pt.token, { title: 'Build passed', severity: 'success', external_status: 'resolved', event_type: 'personal.ci.build' });
  await send('disk', pt.token, {
    title: 'Disk almost full',
    summary: 'volume /data at 91%',
    severity: 'warn',
    external_status: 'firing',
    event_type: 'personal.mon.disk',
  });
  await send('cpu', grafana.token, { title: 'CPU high', severity: 'warn', event_type: 'personal.mon.cpu' });
  await send('old', pt.token, { title: 'Old thing', severity: 'info', event_type: 'personal.misc.old' });
  await send('later', pt.token, { title: 'Later thing', severity: 'info', event_type: 'personal.misc.later' });
  const c = inbox(ag.token);
  await c.markRead({ notificationId: id.disk! });
  await c.markDone({ notificationIds: [id.old!] });
  await c.snooze({ notificationId: id.later!, preset: 'tomorrow', timeZone: 'UTC' });
  return { pt, ag, id };
}

let w: World;
let other: World;
beforeAll(async () => {
  w = await world();
  other = await world();
});

const keysOf = (wd: World, ids: string[]) => ids.map((i) => Object.entries(wd.id).find(([, v]) => v === i)?.[0] ?? `?${i}`).sort();
const search = async (query: string, view = 'all') => {
  const r = await inbox(w.ag.token).listInbox({ view, query, limit: 50 });
  return {
    keys: keysOf(
      w,
      r.items.map((i) => i.notificationId),
    ),
    total: r.totalCount,
  };
};

describe('words', () => {
  it('match word prefixes of title, summary, labels and actor name, ignoring case and accents', async () => {
    expect((await search('deploiement')).keys).toEqual(['deploy']);
    expect((await search('DÉPLOI')).keys).toEqual(['deploy']);
    expect((await search('ploiement')).keys).toEqual([]);
    expect((await search('production')).keys).toEqual(['deploy']);
    expect((await search('muller zoe')).keys).toEqual(['deploy']);
    expect((await search('data 91')).keys).toEqual(['disk']);
    expect((await search('thing')).keys).toEqual(['later', 'old']);
    expect(await search('thing', 'inbox')).toEqual({ keys: [], total: 0 });
  });
});

describe('qualifiers and their negation', () => {
  const all = ['build', 'cpu', 'deploy', 'disk', 'later', 'old'];
  const not = (keys: string[]) => all.filter((k) => !keys.includes(k));
  it.each([
    ['is:unread', ['build', 'cpu', 'deploy', 'later']],
    ['is:read', ['disk', 'old']],
    ['is:done', ['old']],
    ['is:snoozed', ['later']],
    ['severity:warn', ['cpu', 'disk']],
    ['severity:critical,success', ['build', 'deploy']],
    ['status:firing', ['deploy', 'disk']],
    ['type:personal.mon', ['cpu', 'disk']],
    ['type:personal.ci.b', ['build']],
    ['from:grafana-alerts', ['cpu']],
  ])('%s and its negation', async (q, keys) => {
    const r = await search(q);
    expect(r.keys).toEqual(keys);
    expect(r.total).toBe(keys.length);
    expect((await search(`-${q}`)).keys).toEqual(not(keys));
  });

  it('after: and before: are UTC days', async () => {
    const today = h.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    expect((await search(`after:${today}`)).keys).toEqual(all);
    expect((await search(`after:${tomorrow}`)).keys).toEqual([]);
    expect((await search(`before:${tomorrow}`)).keys).toEqual(all);
    expect((await search(`-before:${tomorrow}`)).keys).toEqual([]);
  });

  it('words and qualifiers together; the counts are of the view and query', async () => {
    expect(await search('firing severity:warn')).toEqual({ keys: [], total: 0 });
    expect(await search('disk status:firing -is:unread')).toEqual({ keys: ['disk'], total: 1 });
    const r = toolText((await mcp(h, call('list_inbox', { query: 'severity:warn,critical' }), { token: w.ag.token })).body);
    expect(r.items.map((i: any) => i.title).sort()).toEqual(['CPU high', 'Disk almost full', 'Déploiement échoué sur prod']);
    expect(r).toMatchObject({ totalCount: 3, unreadCount: 2 });
  });
});

describe('the wrong caller and bad input', () => {
  it("never finds another user's rows", async () => {
    const r = await inbox(w.ag.token).listInbox({ view: 'all', query: 'deploiement' });
    expect(r.items.map((i) => i.notificationId)).toEqual([w.id.deploy]);
    expect(r.items.map((i) => i.notificationId)).not.toContain(other.id.deploy);
  });

  it('a malformed query is invalid_argument naming the part, on Connect and MCP', async () => {
    let err: ConnectError | undefined;
    try {
      await inbox(w.ag.token).listInbox({ query: 'disk severity:fatal' });
    } catch (e) {
      err = ConnectError.from(e);
    }
    expect(err?.code).toBe(Code.InvalidArgument);
    const v = err!.findDetails(ValidationErrorDetailSchema)[0]!.violations[0]!;
    expect(v).toMatchObject({ field: 'query', code: 'invalid_query' });
    expect(v.message).toContain('"severity:fatal"');
    const body = (await mcp(h, call('list_inbox', { query: 'label:env' }), { token: w.ag.token })).body;
    expect(JSON.stringify(body)).toContain('label:env');
  });

  it('mark all done acts on the query only', async () => {
    const c = inbox(other.ag.token);
    expect(await c.markAllDone({ query: 'type:personal.mon' })).toMatchObject({ updatedCount: 2, more: false });
    const done = await c.listInbox({ view: 'done' });
    expect(
      keysOf(
        other,
        done.items.map((i) => i.notificationId),
      ),
    ).toEqual(['cpu', 'disk', 'old']);
  });
});
