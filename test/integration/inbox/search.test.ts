// The inbox search language through Connect (ListInbox.query, MarkAllDone.query) and MCP
// (list_inbox.query): words as prefixes of title, summary, label values and actor name (case and
// accents ignored), each qualifier and its negation, counts of the view and query, a malformed
// query refused naming its part, and never another user's rows.
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, fails, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { call, mcp, toolText } from '../mcp/rpc.js';
import { addNotification } from '../../../src/domain/inbox/notify.js';
import { indexSearchBacklogTask } from '../../../src/domain/inbox/index-search-backlog.js';
import { INBOX_LIMITS } from '../../../src/domain/inbox/inbox.limits.js';

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

/** Every page of a search, token to token: the titles in list order; each page's count must be `total`. */
async function allTitles(c: Client<typeof InboxService>, query: string, limit: number, total: number): Promise<string[]> {
  const seen: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await c.listInbox({ query, limit, ...(pageToken ? { pageToken } : {}) });
    expect(page.totalCount).toBe(total);
    seen.push(...page.items.map((i) => i.title));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return seen;
}

interface World {
  pt: TestToken;
  ag: AgentUser;
  /** A second agent of the same user (each token has its own 60 calls a minute). */
  ag2: AgentUser;
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
  return { pt, ag, ag2: await withToken(h, pt.user, ['read:inbox']), id };
}

let w: World;
let other: World;
beforeAll(async () => {
  w = await world();
  other = await world();
});

const keysOf = (wd: World, ids: string[]) => ids.map((i) => Object.entries(wd.id).find(([, v]) => v === i)?.[0] ?? `?${i}`).sort();
const search = async (query: string, view = 'all', token = w.ag.token) => {
  const r = await inbox(token).listInbox({ view, query, limit: 50 });
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
    // Beside a part the index finds (every event's type starts so), a negated severity or type is
    // a NOT in the tsquery; the same answer.
    expect((await search(`type:personal -${q}`, 'all', w.ag2.token)).keys).toEqual(not(keys));
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
    // Both users have a token labelled Grafana-Alerts: from: names the caller's own only.
    const f = await inbox(w.ag.token).listInbox({ view: 'all', query: 'from:grafana-alerts' });
    expect(f.items.map((i) => i.notificationId)).toEqual([w.id.cpu]);
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
    expect(body.error).toMatchObject({ code: -32602, data: { field: 'query' } });
    expect(JSON.stringify(body.error)).toContain('label:env');
    expect(JSON.stringify(body.error)).toContain('invalid_query');
  });

  it('NUL, another control character or an unpaired surrogate in a query is refused on Connect and MCP, nothing listed', async () => {
    for (const query of ['disk\u0000', 'from:a\u0000b', 'disk\u001b[31m', 'd\ud800isk', 'from:\udc00']) {
      // Protobuf's UTF-8 encoding turns an unpaired surrogate into U+FFFD on the client: controls only on Connect.
      if (!/[\ud800-\udfff]/.test(query)) {
        const err = await fails(inbox(w.ag.token).listInbox({ query }));
        expect(err.code, JSON.stringify(query)).toBe(Code.InvalidArgument);
        expect(err.findDetails(ValidationErrorDetailSchema)[0]!.violations[0]).toMatchObject({ field: 'query' });
      }
      const body = (await mcp(h, call('list_inbox', { query }), { token: w.ag.token })).body;
      expect(body.error, JSON.stringify(query)).toMatchObject({ code: -32602 });
      expect(body.result).toBeUndefined();
    }
    expect((await fails(inbox(w.ag.token).markAllDone({ query: 'type:personal\u0000' }))).code).toBe(Code.InvalidArgument);
    expect((await inbox(w.ag.token).listInbox({ view: 'done' })).items.map((i) => i.notificationId)).toEqual([w.id.old]);
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

describe('the index (notifications.search_doc)', () => {
  it("a repeat that changes the text is found by its new words only; a repeat keeps the event's severity and type", async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    const first = event(h, { title: 'Nightly backup running', severity: 'info', event_type: 'personal.ops.backup' });
    expect((await publish(h, pt.token, first)).status).toBe(202);
    const again = { ...first, title: 'Nightly backup finished', severity: 'critical', event_type: 'personal.ops.other' };
    expect((await publish(h, pt.token, again)).status).toBe(200);
    const found = async (query: string) => (await inbox(ag.token).listInbox({ view: 'all', query })).items.map((i) => i.title);
    expect(await found('finished')).toEqual(['Nightly backup finished']);
    expect(await found('running')).toEqual([]);
    expect(await found('severity:info type:personal.ops.backup backup')).toEqual(['Nightly backup finished']);
    expect(await found('severity:critical')).toEqual([]);
  });

  it("a notification of the service's own (not an event) is found by its title, summary and actor name", async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    const em = h.svc.deps.orm.em.fork();
    addNotification(em, h.clock.now(), {
      userId: pt.user.userId,
      type: 'task',
      title: 'Assigned to you: OPS-7 Rotate certificates',
      summary: 'Renewal window closes Friday',
      actorName: 'Ångström Ops',
    });
    await em.flush();
    for (const q of ['rotate', 'renewal fri', 'angstrom']) {
      expect(
        (await inbox(ag.token).listInbox({ view: 'all', query: q })).items.map((i) => i.title),
        q,
      ).toEqual(['Assigned to you: OPS-7 Rotate certificates']);
    }
  });

  it('rows written without a document (before the upgrade, or by the previous release) are found once the backlog task ran; a search counts at most 100', async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    // 2,600 rows as the previous release writes them (no search_doc), more than a search counts
    // (INBOX_LIMITS.searchCountMax, 100): a search whose matches are common among the newest rows is
    // counted and paged by walking the view in list order, a rarer one through the index. Row g is
    // g seconds old.
    await sql(
      `insert into notifications (id, user_id, type, title, summary, created_at, updated_at)
       select gen_random_uuid(), ?, 'system', 'Legacy alert ' || g,
         case when g % 500 = 0 then 'rare needle' when g % 3 = 0 then 'every third' else 'from the old release' end,
         now() - g * interval '1 second', now()
       from generate_series(1, 2600) g`,
      [pt.user.userId],
    );
    const c = inbox(ag.token);
    expect((await c.listInbox({ query: 'legacy' })).totalCount).toBe(0);
    const ran = await indexSearchBacklogTask.run(h.svc.deps);
    expect(ran.processed).toBeGreaterThanOrEqual(2600);
    expect((await sql('select count(*)::int as n from notifications where user_id = ? and search_doc is null', [pt.user.userId]))[0].n).toBe(0);

    const r = await c.listInbox({ query: 'legacy', limit: 10 });
    expect(r).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(r.items.map((i) => i.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Legacy alert ${i + 1}`));
    // Narrow, past the probe: found through the index, exact counts.
    expect(await c.listInbox({ query: 'legacy alert 2500' })).toMatchObject({ totalCount: 1, totalCountCapped: false });
    // The All view: one probe over its three states' ranges, merged; the same answers.
    await sql(`update notifications set state = 'done', done_at = created_at where user_id = ? and title in ('Legacy alert 2', 'Legacy alert 2500')`, [
      pt.user.userId,
    ]);
    expect((await c.listInbox({ view: 'all', query: 'legacy alert 2500' })).items.map((i) => i.title)).toEqual(['Legacy alert 2500']);
    expect((await c.listInbox({ query: 'legacy alert 2500' })).totalCount).toBe(0);
    expect(await c.listInbox({ view: 'all', query: 'every third' })).toMatchObject({ totalCount: 100, totalCountCapped: true });
    // Rare among the newest 500 rows (12: alert 5, 50-59, 500), common further back (500-599): the
    // probe hands it to the index, which finds more than the cap; the page is walked for.
    const fives = await c.listInbox({ query: 'legacy alert 5', limit: 13 });
    expect(fives).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(fives.items.map((i) => i.title)).toEqual([5, ...Array.from({ length: 10 }, (_, i) => 50 + i), 500, 501].map((g) => `Legacy alert ${g}`));
    // One in about six of the newest rows (every third with a number starting with 1: 37 of 500):
    // the walk goes on past the probe to the cap.
    const ones = await c.listInbox({ query: 'every third legacy alert 1', limit: 3 });
    expect(ones).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(ones.items.map((i) => i.title)).toEqual(['Legacy alert 12', 'Legacy alert 15', 'Legacy alert 18']);
    expect((await c.listInbox({ view: 'all', query: 'legacy', limit: 3 })).items.map((i) => i.title)).toEqual([
      'Legacy alert 1',
      'Legacy alert 2',
      'Legacy alert 3',
    ]);
    await sql(`update notifications set state = 'inbox', done_at = null where user_id = ? and state = 'done'`, [pt.user.userId]);
    const third = await c.listInbox({ query: 'every third', limit: 5 });
    expect(third).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(third.items.map((i) => i.title)).toEqual(['Legacy alert 3', 'Legacy alert 6', 'Legacy alert 9', 'Legacy alert 12', 'Legacy alert 15']);
    // Paging a narrow search through the index: every match once, in list order.
    expect(await allTitles(c, 'needle', 2, 5)).toEqual([500, 1000, 1500, 2000, 2500].map((g) => `Legacy alert ${g}`));
    // Words common to every row beside a rare one, and a NOT: the index is asked for the rarest
    // word (and the NOT), the whole search tested on the rows it finds.
    const rare = await c.listInbox({ query: 'legacy rare alert 2 -severity:info', limit: 10 });
    expect(rare).toMatchObject({ totalCount: 2, totalCountCapped: false });
    expect(rare.items.map((i) => i.title)).toEqual(['Legacy alert 2000', 'Legacy alert 2500']);
    // Paging a broad one past the probe: the matches past the probe come through the index.
    const deep: string[] = [];
    let pageToken: string | undefined;
    for (let i = 0; i < 6; i++) {
      const page = await c.listInbox({ query: 'legacy', limit: 500, ...(pageToken ? { pageToken } : {}) });
      deep.push(...page.items.map((x) => x.title));
      pageToken = page.nextPageToken;
      if (!pageToken) break;
    }
    expect(deep).toEqual(Array.from({ length: 2600 }, (_, i) => `Legacy alert ${i + 1}`));
    // Many matches, all older than more newer rows than a search walks for its page
    // (INBOX_LIMITS.searchWalkRows): the index's matches are sorted instead; the same answers.
    await sql(
      `insert into notifications (id, user_id, type, title, created_at, updated_at)
       select gen_random_uuid(), ?, 'system', 'Fresh notice ' || g, now() + g * interval '1 millisecond', now()
       from generate_series(1, ?::int) g`,
      [pt.user.userId, INBOX_LIMITS.searchWalkRows + 100],
    );
    await indexSearchBacklogTask.run(h.svc.deps);
    const buried = await c.listInbox({ query: 'legacy', limit: 3 });
    expect(buried).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(buried.items.map((i) => i.title)).toEqual(['Legacy alert 1', 'Legacy alert 2', 'Legacy alert 3']);
    expect((await c.listInbox({ query: 'legacy', limit: 2, pageToken: buried.nextPageToken })).items.map((i) => i.title)).toEqual([
      'Legacy alert 4',
      'Legacy alert 5',
    ]);
    expect((await c.listInbox({ view: 'all', query: 'legacy', limit: 1 })).items.map((i) => i.title)).toEqual(['Legacy alert 1']);

    const tool = toolText((await mcp(h, call('list_inbox', { query: 'old release', limit: 1 }), { token: ag.token })).body);
    expect(tool).toMatchObject({ totalCount: 100, unreadCount: 100, totalCountCapped: true });
    const few = toolText((await mcp(h, call('list_inbox', { query: 'legacy alert 1000' }), { token: ag.token })).body);
    expect(few.totalCount).toBe(1);
    expect(few).not.toHaveProperty('totalCountCapped');
  });

  it('a search the walk reads to the end of the view is counted exactly by the walk', async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    // 1,200 rows (more than the probe's 500, fewer than it walks in all), one in 15 a "tick": 33
    // of the newest 500 (one in about thirty or more: the walk goes on), 80 in all.
    await sql(
      `insert into notifications (id, user_id, type, title, created_at, updated_at, read_at)
       select gen_random_uuid(), ?, 'system', case when g % 15 = 0 then 'Tick ' || g else 'Tock ' || g end,
         now() - g * interval '1 second', now(), case when g % 30 = 0 then now() end
       from generate_series(1, 1200) g`,
      [pt.user.userId],
    );
    await indexSearchBacklogTask.run(h.svc.deps);
    const c = inbox(ag.token);
    const r = await c.listInbox({ query: 'tick', limit: 3 });
    expect(r).toMatchObject({ totalCount: 80, totalCountCapped: false });
    expect(r.items.map((i) => i.title)).toEqual(['Tick 15', 'Tick 30', 'Tick 45']);
    const tool = toolText((await mcp(h, call('list_inbox', { query: 'tick', limit: 1 }), { token: ag.token })).body);
    expect(tool).toMatchObject({ totalCount: 80, unreadCount: 40 });
    expect(tool).not.toHaveProperty('totalCountCapped');
    // Paged to the end: every match once, in list order.
    expect(await allTitles(c, 'tick', 30, 80)).toEqual(Array.from({ length: 80 }, (_, i) => `Tick ${15 * (i + 1)}`));
  });
});
