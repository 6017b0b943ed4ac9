// "Group repeats" as a per-user preference (NotificationSettingsService Preferences.group_inbox,
// README "Nudges") over Connect against real PostgreSQL: on by default, turned off through a web
// session as the web app does and read back off by the same user's other session and agent token
// (per user, not per browser), unchanged by a SetPreferences that does not give it, and not changed
// by a caller who may not: an agent token without write:inbox, a session call without its CSRF
// header, another user (their own preferences only), an inbound token. A row written by the previous
// release's upsert (which does not name the column) keeps grouping on.
import { Code, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { bearer, closeSessions, fails, transportFor, webSession, withSession } from '../../helpers/connect.js';
import { newPersonalToken, newUser, operator, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

type Settings = Client<typeof NotificationSettingsService>;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

/** The settings client of a web session of `user` (cookie + x-csrf-token, as the web app calls). */
async function sessionClient(user: TestUser): Promise<Settings> {
  return createClient(NotificationSettingsService, transportFor(h, 'connect', [withSession(await webSession(h, user.email))]));
}

/** The settings client of a new agent token of `user` with `scopes`. */
async function agentClient(user: TestUser, scopes: string[]): Promise<Settings> {
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email, scopes });
  return createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
}

const grouping = async (c: Settings) => (await c.getPreferences({})).preferences?.groupInbox;

describe('Preferences.group_inbox', () => {
  it('is on by default, before any setting is stored and after another one is', async () => {
    const user = await newUser(h);
    const web = await sessionClient(user);
    expect(await grouping(web)).toBe(true);
    // A row stored by other settings (chat off) keeps the default.
    const set = await web.setPreferences({ chatEnabled: false });
    expect(set.preferences).toMatchObject({ chatEnabled: false, groupInbox: true });
    expect(await grouping(web)).toBe(true);
  });

  it('set false through a web session: the same user’s other session and agent token read false; true again turns it back on', async () => {
    const user = await newUser(h);
    const web = await sessionClient(user);
    const set = await web.setPreferences({ groupInbox: false });
    expect(set.preferences?.groupInbox).toBe(false);
    expect(await grouping(web)).toBe(false);
    // Another browser (a new session) and the user's agent token: the same value.
    expect(await grouping(await sessionClient(user))).toBe(false);
    expect(await grouping(await agentClient(user, ['read:inbox']))).toBe(false);
    expect((await sql('select group_inbox from nudge_preferences where user_id = ?', [user.userId]))[0].group_inbox).toBe(false);
    expect((await web.setPreferences({ groupInbox: true })).preferences?.groupInbox).toBe(true);
    expect(await grouping(await agentClient(user, ['read:inbox']))).toBe(true);
  });

  it('a SetPreferences that does not give it leaves it; it leaves the other fields', async () => {
    const user = await newUser(h);
    const agent = await agentClient(user, ['read:inbox', 'write:inbox']);
    await agent.setPreferences({ groupInbox: false, doneOnResolution: true });
    await agent.setPreferences({ chatEnabled: false });
    await agent.setPreferences({ pushSeverities: ['critical'], updatePushSeverities: true });
    await agent.setPreferences({ quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [1, 2, 3, 4, 5] } });
    await agent.setPreferences({ clearQuietHours: true });
    await agent.setPreferences({});
    const p = (await agent.getPreferences({})).preferences;
    expect(p).toMatchObject({ groupInbox: false, doneOnResolution: true, chatEnabled: false, pushSeverities: ['critical'] });
    expect(p?.quietHours).toBeUndefined();
    // Setting only group_inbox changes nothing else.
    const on = (await agent.setPreferences({ groupInbox: true })).preferences;
    expect(on).toMatchObject({ groupInbox: true, doneOnResolution: true, chatEnabled: false, pushSeverities: ['critical'] });
  });

  it('a caller who may not cannot change it: a token without write:inbox, a session call without CSRF, an inbound token; another user changes only their own', async () => {
    const user = await newUser(h);
    const web = await sessionClient(user);
    await web.setPreferences({ groupInbox: false });

    // An agent token of the user that may only read: permission_denied (missing_scope).
    const ro = await agentClient(user, ['read:inbox']);
    expect((await fails(ro.setPreferences({ groupInbox: true }))).code).toBe(Code.PermissionDenied);

    // The session's cookie without its CSRF header: unauthenticated.
    const s = await webSession(h, user.email);
    const noCsrf = createClient(
      NotificationSettingsService,
      transportFor(h, 'connect', [
        (next) => async (req) => {
          req.header.set('cookie', s.cookie);
          return next(req);
        },
      ]),
    );
    expect((await fails(noCsrf.setPreferences({ groupInbox: true }))).code).toBe(Code.Unauthenticated);

    // An inbound (personal) token is no caller of this service.
    const t = await newPersonalToken(h, { user });
    const inbound = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(t.token)]));
    expect((await fails(inbound.setPreferences({ groupInbox: true }))).code).toBe(Code.Unauthenticated);

    // Another user's session sets their own preference; this user's stays off.
    const other = await newUser(h);
    const theirs = await sessionClient(other);
    expect((await theirs.setPreferences({ groupInbox: true })).preferences?.groupInbox).toBe(true);
    expect((await theirs.setPreferences({ groupInbox: false })).preferences?.groupInbox).toBe(false);
    expect((await theirs.setPreferences({ groupInbox: true })).preferences?.groupInbox).toBe(true);

    expect(await grouping(web)).toBe(false);
    expect(await grouping(await agentClient(user, ['read:inbox']))).toBe(false);
  });

  it('a row the previous release writes (its upsert names its own columns only) keeps grouping on, and its update keeps the stored value', async () => {
    const user = await newUser(h);
    const previousUpsert = (chatEnabled: boolean) =>
      sql(
        `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, quiet_start, quiet_end, quiet_tz, quiet_days,
           done_on_resolution, updated_at)
         values (?, '{critical,warn}'::text[], ?, null, null, null, null, null, null, false, now())
         on conflict (user_id) do update set chat_enabled = excluded.chat_enabled, updated_at = excluded.updated_at`,
        [user.userId, chatEnabled],
      );
    await previousUpsert(false);
    const agent = await agentClient(user, ['read:inbox', 'write:inbox']);
    expect((await agent.getPreferences({})).preferences).toMatchObject({ groupInbox: true, chatEnabled: false });
    await agent.setPreferences({ groupInbox: false });
    await previousUpsert(true);
    expect((await agent.getPreferences({})).preferences).toMatchObject({ groupInbox: false, chatEnabled: true });
  });
});
