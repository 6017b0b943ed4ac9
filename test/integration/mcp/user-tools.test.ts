// User admin tools through POST /mcp (SPEC C invite_user, search_user_by_username; Errors: the
// structured tool errors with full problem URIs for the 422 cases user-already-exists and
// domain-not-allowed, and username_contains_at).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, startHarness, type Harness } from '../../helpers/harness.js';
import {
  adminAgent,
  agentWithRole,
  callTool,
  expectInvalidParams,
  expectMissingScope,
  failed,
  memberAgent,
  ok,
  sqlOf,
  STRUCTURED_ADMIN_ONLY,
} from './admin-fixtures.js';

let h: Harness;
let sql: ReturnType<typeof sqlOf>;
beforeAll(async () => {
  h = await startHarness({ env: { ALLOWED_EMAIL_DOMAINS: 'example.test' } });
  sql = sqlOf(h);
});
afterAll(async () => {
  await h?.close();
});

const fresh = (tag = 'inv') => `${tag}-${randomBytes(5).toString('hex')}@example.test`;

describe('invite_user', () => {
  it('creates the user, profile, onboarding checklist, notification preferences and a welcome notification', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const email = fresh();
    const out = await ok(h, admin.token, 'invite_user', { email: email.toUpperCase(), name: 'Mei Lin' });
    expect(out).toEqual({ user_id: expect.any(String), email, name: 'Mei Lin', status: 'active', invite_sent: true });
    const [user] = await sql('select email, name, role, status from users where id = ?', [out.user_id]);
    expect(user).toEqual({ email, name: 'Mei Lin', role: 'member', status: 'active' });
    const [profile] = await sql('select employment_type, location, ui_language, invited_by_user_id from user_profiles where user_id = ?', [out.user_id]);
    expect(profile).toEqual({ employment_type: 'full_time', location: 'overseas', ui_language: 'zh', invited_by_user_id: admin.userId });
    const [checklist] = await sql('select items, created_by_user_id, completed_at from onboarding_checklists where user_id = ?', [out.user_id]);
    expect(checklist.created_by_user_id).toBe(admin.userId);
    expect(checklist.completed_at).toBeNull();
    expect(checklist.items.map((i: any) => i.key)).toEqual(['profile', 'notifications', 'team_support', 'agent_client']);
    expect(checklist.items.every((i: any) => i.done === false)).toBe(true);
    const [prefs] = await sql('select inbox, push, chat, email_digest, locale from notification_preferences where user_id = ?', [out.user_id]);
    expect(prefs).toEqual({ inbox: true, push: true, chat: true, email_digest: 'daily', locale: 'zh' });
    const [welcome] = await sql('select title, summary, target_url, actor_user_id, tags from notifications where user_id = ?', [out.user_id]);
    expect(welcome).toEqual({
      title: 'Welcome to fluxdesk, Mei Lin',
      summary: 'Your onboarding checklist is ready: 4 steps.',
      target_url: expect.stringMatching(/\/onboarding$/),
      actor_user_id: admin.userId,
      tags: ['onboarding'],
    });
    const [audit] = await sql(
      `select action, source, actor_user_id, token_id, target_id, summary from audit_log where action = 'users.invited' and target_id = ?`,
      [out.user_id],
    );
    expect(audit).toEqual({
      action: 'users.invited',
      source: 'mcp',
      actor_user_id: admin.userId,
      token_id: admin.tokenId,
      target_id: out.user_id,
      summary: {
        tool: 'invite_user',
        role: 'member',
        status: 'active',
        employment_type: 'full_time',
        location: 'overseas',
        ui_language: 'zh',
        checklist_id: expect.any(String),
      },
    });
  });

  it('takes role, employment_type, location, ui_language and status; the checklist follows them', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const out = await ok(h, admin.token, 'invite_user', {
      email: fresh(),
      name: 'Contractor',
      role: 'assistant',
      employment_type: 'contractor',
      location: 'china',
      ui_language: 'en',
      status: 'offboarding',
    });
    expect(out.status).toBe('offboarding');
    const [user] = await sql('select role, status from users where id = ?', [out.user_id]);
    expect(user).toEqual({ role: 'assistant', status: 'offboarding' });
    const [checklist] = await sql('select items from onboarding_checklists where user_id = ?', [out.user_id]);
    expect(checklist.items.map((i: any) => i.key)).toEqual(['profile', 'notifications', 'team_support', 'agent_client', 'cross_border', 'contractor_terms']);
    expect((await sql('select locale from notification_preferences where user_id = ?', [out.user_id]))[0].locale).toBe('en');
    await expectInvalidParams(h, admin.token, 'invite_user', { email: fresh(), name: 'x', role: 'coordinator' }, 'role');
    await expectInvalidParams(h, admin.token, 'invite_user', { email: fresh(), name: 'x', ui_language: 'fr' }, 'ui_language');
    await expectInvalidParams(h, admin.token, 'invite_user', { email: 'not-an-email', name: 'x' }, 'email');
  });

  it('an existing email is the structured user-already-exists with user_id on field email; nothing is written', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const existing = await newUser(h);
    const err = await failed(h, admin.token, 'invite_user', { email: existing.email, name: 'Dup' });
    expect(err).toEqual({
      error: {
        type: expect.stringMatching(/^http.*\/errors\/user-already-exists$/),
        title: 'user_already_exists',
        detail: `a user with email ${existing.email} already exists`,
        field: 'email',
        email: existing.email,
        user_id: existing.userId,
      },
    });
    expect(await sql('select user_id from user_profiles where user_id = ?', [existing.userId])).toEqual([]);
    expect(await sql(`select id from audit_log where action = 'users.invited' and target_id = ?`, [existing.userId])).toEqual([]);
  });

  it('concurrent invites of one email: one creates the user, every other call is the structured user-already-exists (never an internal error)', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const email = fresh('race');
    const bodies = await Promise.all(Array.from({ length: 6 }, (_, i) => callTool(h, admin.token, 'invite_user', { email, name: `Race ${i}` })));
    const created = bodies.filter((b) => !b.result.isError);
    expect(created).toHaveLength(1);
    const [user] = await sql('select id from users where email = ?', [email]);
    for (const b of bodies.filter((x) => x.result.isError)) {
      expect(JSON.parse(b.result.content[0].text)).toEqual({
        error: {
          type: expect.stringMatching(/\/errors\/user-already-exists$/),
          title: 'user_already_exists',
          detail: `a user with email ${email} already exists`,
          field: 'email',
          email,
          user_id: user.id,
        },
      });
    }
    expect(await sql('select user_id from user_profiles where user_id = ?', [user.id])).toHaveLength(1);
    expect(await sql(`select id from audit_log where action = 'users.invited' and target_id = ?`, [user.id])).toHaveLength(1);
  });

  it('an email outside ALLOWED_EMAIL_DOMAINS is the structured domain-not-allowed on field email', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const err = await failed(h, admin.token, 'invite_user', { email: 'someone@elsewhere.test', name: 'Out' });
    expect(err).toEqual({
      error: {
        type: expect.stringMatching(/\/domain-not-allowed$/),
        title: 'domain_not_allowed',
        detail: 'email domain "elsewhere.test" is outside the company allowlist',
        field: 'email',
        email: 'someone@elsewhere.test',
        domain: 'elsewhere.test',
      },
    });
    expect(await sql(`select id from users where email = 'someone@elsewhere.test'`)).toEqual([]);
  });

  it('admin only (structured forbidden); only a super admin invites a super admin; scope admin:users (admin:catalog satisfies it)', async () => {
    const member = await memberAgent(h, ['admin:users']);
    const email = fresh();
    expect(await failed(h, member.token, 'invite_user', { email, name: 'x' })).toEqual(STRUCTURED_ADMIN_ONLY);
    const admin = await adminAgent(h, ['admin:users']);
    expect(await failed(h, admin.token, 'invite_user', { email, name: 'Boss', role: 'super_admin' })).toEqual({
      error: { type: 'forbidden', title: 'permission_denied', detail: 'only a super admin may invite a super admin', field: 'role' },
    });
    expect(await sql('select id from users where email = ?', [email])).toEqual([]);
    const superAdmin = await agentWithRole(h, 'super_admin', ['admin:catalog']);
    expect((await ok(h, superAdmin.token, 'invite_user', { email, name: 'Boss', role: 'super_admin' })).user_id).toEqual(expect.any(String));
    await expectMissingScope(h, (await adminAgent(h, ['admin:approvals'])).token, 'invite_user', { email: fresh(), name: 'x' }, 'admin:users');
  });
});

describe('search_user_by_username', () => {
  it('matches the local part: exact first, then prefix, then substring; at most 20', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    const stem = `zq${randomBytes(3).toString('hex')}`;
    const exact = await ok(h, admin.token, 'invite_user', { email: `${stem}@example.test`, name: 'Exact' });
    const prefix = await ok(h, admin.token, 'invite_user', { email: `${stem}.wang@example.test`, name: 'Prefix' });
    const inner = await ok(h, admin.token, 'invite_user', { email: `li.${stem}@example.test`, name: 'Inner' });
    const out = await ok(h, admin.token, 'search_user_by_username', { username: stem.toUpperCase() });
    expect(out.items.map((i: any) => i.user_id)).toEqual([exact.user_id, prefix.user_id, inner.user_id]);
    expect(out.items[0]).toEqual({
      user_id: exact.user_id,
      email: `${stem}@example.test`,
      name: 'Exact',
      role: 'member',
      status: 'active',
      domain: 'example.test',
      created_at: expect.any(String),
    });

    const many = `zm${randomBytes(3).toString('hex')}`;
    for (let i = 0; i < 22; i++) await ok(h, (await adminAgent(h, ['admin:users'])).token, 'invite_user', { email: `${many}${i}@example.test`, name: `M${i}` });
    expect((await ok(h, admin.token, 'search_user_by_username', { username: many })).items).toHaveLength(20);
  });

  it('empty result is {items: []}; LIKE wildcards are literal; only_active false includes inactive users', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    expect(await ok(h, admin.token, 'search_user_by_username', { username: `nobody${randomBytes(4).toString('hex')}` })).toEqual({ items: [] });
    expect(await ok(h, admin.token, 'search_user_by_username', { username: '%' })).toEqual({ items: [] });
    expect(await ok(h, admin.token, 'search_user_by_username', { username: '_' })).toEqual({ items: [] });
    const stem = `zo${randomBytes(3).toString('hex')}`;
    const gone = await ok(h, admin.token, 'invite_user', { email: `${stem}@example.test`, name: 'Gone', status: 'offboarded' });
    expect(await ok(h, admin.token, 'search_user_by_username', { username: stem })).toEqual({ items: [] });
    expect((await ok(h, admin.token, 'search_user_by_username', { username: stem, only_active: false })).items).toEqual([
      expect.objectContaining({ user_id: gone.user_id, status: 'offboarded' }),
    ]);
  });

  it('a username with "@" is the structured 422 username_contains_at; admin only; scope admin:users', async () => {
    const admin = await adminAgent(h, ['admin:users']);
    expect(await failed(h, admin.token, 'search_user_by_username', { username: 'mei@example.test' })).toEqual({
      error: { type: expect.stringMatching(/\/username-contains-at$/), title: 'username_contains_at', detail: expect.stringContaining('@'), field: 'username' },
    });
    expect(await failed(h, (await memberAgent(h, ['admin:users'])).token, 'search_user_by_username', { username: 'mei' })).toEqual(STRUCTURED_ADMIN_ONLY);
    await expectMissingScope(h, (await adminAgent(h, ['admin:tokens'])).token, 'search_user_by_username', { username: 'mei' }, 'admin:users');
    await expectInvalidParams(h, admin.token, 'search_user_by_username', { username: '' }, 'username');
  });
});

describe('whoami and ping', () => {
  it("report the token's user as it is now: a renamed user shows the new name at the next call", async () => {
    const me = await agentWithRole(h, 'member', ['read:inbox']);
    const [row] = await sql('select name, email, role from users where id = ?', [me.userId]);
    for (const tool of ['whoami', 'ping']) {
      expect(await ok(h, me.token, tool)).toMatchObject({ userId: me.userId, email: row.email, name: row.name, role: 'member' });
    }
    await sql('update users set name = ? where id = ?', ['Renamed Person', me.userId]);
    expect(await ok(h, me.token, 'whoami')).toMatchObject({ userId: me.userId, name: 'Renamed Person', scopes: ['read:inbox'] });
    expect(await ok(h, me.token, 'ping')).toMatchObject({ name: 'Renamed Person' });
  });
});
