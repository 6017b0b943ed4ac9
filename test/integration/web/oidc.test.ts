// Web sign-in through company SSO (docs/web-sign-in.md) against a real OpenID Connect
// provider run in-process (oidc-provider, test/helpers/oidc-provider.ts), over plain HTTP: our
// /auth/oidc/start -> the provider's login form -> our /auth/oidc/callback (code + PKCE, state
// bound to the browser, nonce) -> a session that authenticates Connect calls. Refusals are pages.
//
// The sign-in routes run on a front of their own (registerAuthRoutes on the harness's deps, so the
// same database): the redirect URI must be known before the provider starts, and the routes get
// the OIDC settings as the web plugin hands them over.
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { registerAuthRoutes } from '../../../src/transports/web/auth-routes.js';
import { closeSessions, transportFor } from '../../helpers/connect.js';
import { newUser, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { CookieJar, followProviderForms, startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { freePort } from '../../helpers/redis-server.js';

let h: Harness;
let idp: TestOidcProvider;
let front: FastifyInstance;
let base: string;
/** A second front with OIDC_TRUST_EMAIL=true, on the same provider and database. */
let trusting: FastifyInstance;
let trustingBase: string;

beforeAll(async () => {
  h = await startHarness({ env: { ALLOWED_EMAIL_DOMAINS: 'example.test' } });
  const port = await freePort();
  const trustingPort = await freePort();
  base = `http://127.0.0.1:${port}`;
  trustingBase = `http://127.0.0.1:${trustingPort}`;
  idp = await startOidcProvider({ redirectUris: [`${base}/auth/oidc/callback`, `${trustingBase}/auth/oidc/callback`] });
  front = Fastify();
  await registerAuthRoutes(front, {
    deps: h.svc.deps,
    publicBaseUrl: base,
    errorsBaseUrl: `${base}/errors`,
    oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, trustEmail: false },
  });
  await front.listen({ port, host: '127.0.0.1' });
  trusting = Fastify();
  await registerAuthRoutes(trusting, {
    deps: h.svc.deps,
    publicBaseUrl: trustingBase,
    errorsBaseUrl: `${trustingBase}/errors`,
    oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, trustEmail: true },
  });
  await trusting.listen({ port: trustingPort, host: '127.0.0.1' });
});
afterAll(async () => {
  closeSessions();
  await front?.close();
  await trusting?.close();
  await idp?.close();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

/**
 * From our /auth/oidc/start through the provider's forms (login: any password; consent when it
 * asks) back to our callback, as a browser would: manual redirects, one cookie jar.
 */
async function signInThroughProvider(login: string, opts: { next?: string; jar?: CookieJar; stopAtCallback?: boolean; via?: string } = {}) {
  const jar = opts.jar ?? new CookieJar();
  const front = opts.via ?? base;
  const start = new URL(`/auth/oidc/start${opts.next === undefined ? '' : `?next=${encodeURIComponent(opts.next)}`}`, front);
  const url = await followProviderForms(start, login, jar, (u) => u.origin === front && u.pathname === '/auth/oidc/callback');
  if (opts.stopAtCallback) return { callback: undefined as unknown as Response, callbackUrl: url.href, jar };
  const callback = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.store(callback);
  return { callback, callbackUrl: url.href, jar };
}

const web =
  (cookie: string, csrf: string): Interceptor =>
  (next) =>
  async (req) => {
    req.header.set('cookie', cookie);
    req.header.set('x-csrf-token', csrf);
    return next(req);
  };

async function expectRefusalPage(res: Response, status: number, text: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(res.headers.getSetCookie().filter((c) => c.startsWith('fluxdesk_session=') && !c.startsWith('fluxdesk_session=;'))).toEqual([]);
  const html = await res.text();
  expect(html).toMatch(/<title>[^<]+<\/title>/);
  expect(html).toContain('<h1>');
  expect(html).toContain(text);
  expect(html).toContain('href="/auth/login?next=');
}

describe('sign-in with OIDC', () => {
  it('the sign-in page offers "Sign in with SSO", keeping next', async () => {
    const html = await (await fetch(`${base}/auth/login?next=/inbox/42`)).text();
    expect(html).toContain('<a class="button" href="/auth/oidc/start?next=%2Finbox%2F42">Sign in with SSO</a>');
  });

  it('start sends the browser to the provider with code + PKCE (S256), state, nonce and our redirect URI', async () => {
    const res = await fetch(`${base}/auth/oidc/start?next=/x`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: 'code',
      redirect_uri: `${base}/auth/oidc/callback`,
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    expect(to.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('fluxdesk_oidc='))!;
    expect(cookie).toContain(`fluxdesk_oidc=${to.searchParams.get('state')}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    // Only the state's hash is stored.
    const rows = await sql(`select state_hash, next_path from oidc_logins where next_path = '/x'`);
    expect(JSON.stringify(rows)).not.toContain(to.searchParams.get('state'));
  });

  it('signs an existing user in by email (any case), lands on next, and the session authenticates Connect calls', async () => {
    const user = await newUser(h);
    idp.accounts.set('alice', { email: user.email.toUpperCase() });
    const { callback, jar } = await signInThroughProvider('alice', { next: '/inbox/abc' });
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe('/inbox/abc');
    const session = jar.values.get('fluxdesk_session')!;
    const csrf = jar.values.get('fluxdesk_csrf')!;
    expect(session).toMatch(/^fds_/);
    expect(jar.values.has('fluxdesk_oidc')).toBe(false);
    const cookies = callback.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('fluxdesk_session='))).toMatch(/HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/i);
    const rows = await sql(`select signed_in_by from web_sessions where user_id = ?`, [user.userId]);
    expect(rows).toEqual([{ signed_in_by: 'oidc' }]);
    const account = createClient(AccountService, transportFor(h, 'connect', [web(`fluxdesk_session=${session}`, csrf)]));
    expect((await account.listPersonalTokens({})).tokens).toEqual([]);
  });

  it('signing in again rotates: the browser’s previous session ends', async () => {
    const user = await newUser(h);
    idp.accounts.set('rotating', { email: user.email });
    const first = await signInThroughProvider('rotating');
    const old = first.jar.values.get('fluxdesk_session')!;
    const second = await signInThroughProvider('rotating', { jar: first.jar });
    expect(second.callback.status).toBe(303);
    expect(second.jar.values.get('fluxdesk_session')).not.toBe(old);
    const rows = await sql(`select revoked_at from web_sessions where user_id = ? order by created_at`, [user.userId]);
    expect(rows).toHaveLength(2);
    expect(rows[0].revoked_at).not.toBeNull();
    expect(rows[1].revoked_at).toBeNull();
  });

  it('an email outside ALLOWED_EMAIL_DOMAINS is refused with a readable page, and nobody is signed in', async () => {
    idp.accounts.set('outsider', { email: 'someone@elsewhere.test' });
    const { callback, jar } = await signInThroughProvider('outsider');
    await expectRefusalPage(callback, 403, 'is not one this fluxdesk accepts');
    expect(jar.values.has('fluxdesk_session')).toBe(false);
  });

  it('an email of no user is refused (no account is created on first sign-in)', async () => {
    const email = uniqueEmail('stranger');
    idp.accounts.set('stranger', { email });
    const { callback } = await signInThroughProvider('stranger');
    await expectRefusalPage(callback, 403, `There is no fluxdesk account for ${email}`);
    expect(await sql(`select id from users where email = ?`, [email])).toEqual([]);
  });

  it('an email the provider marks unverified is refused, and so is an inactive user', async () => {
    const user = await newUser(h);
    idp.accounts.set('unverified', { email: user.email, email_verified: false });
    await expectRefusalPage((await signInThroughProvider('unverified')).callback, 403, 'has not confirmed that your email address is verified');
    const leaver = await newUser(h);
    await sql(`update users set status = 'offboarded' where id = ?`, [leaver.userId]);
    idp.accounts.set('leaver', { email: leaver.email });
    await expectRefusalPage((await signInThroughProvider('leaver')).callback, 403, 'is not active');
    expect(await sql(`select id from web_sessions where user_id in (?, ?)`, [user.userId, leaver.userId])).toEqual([]);
  });

  it('a callback works once, only in the browser that started it', async () => {
    const user = await newUser(h);
    idp.accounts.set('replayer', { email: user.email });
    const other = await fetch(`${base}/auth/oidc/start`, { redirect: 'manual' });
    const otherState = other.headers
      .getSetCookie()
      .find((c) => c.startsWith('fluxdesk_oidc='))!
      .split(';')[0]!;
    const { callbackUrl, jar } = await signInThroughProvider('replayer', { stopAtCallback: true });
    // Another browser (no state cookie, or the state of its own sign-in) cannot finish this sign-in.
    await expectRefusalPage(await fetch(callbackUrl, { redirect: 'manual' }), 400, 'Start again');
    await expectRefusalPage(await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: otherState } }), 400, 'Start again');
    // The browser that started it can, once.
    const state = jar.values.get('fluxdesk_oidc')!;
    const done = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(done.status).toBe(303);
    await expectRefusalPage(await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: `fluxdesk_oidc=${state}` } }), 400, 'Start again');
    expect(await sql(`select id from web_sessions where user_id = ?`, [user.userId])).toHaveLength(1);
  });

  it('a provider refusal (error=access_denied) is a readable page', async () => {
    const started = await fetch(`${base}/auth/oidc/start`, { redirect: 'manual' });
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const res = await fetch(`${base}/auth/oidc/callback?error=access_denied&state=${state}`, {
      redirect: 'manual',
      headers: { cookie: `fluxdesk_oidc=${state}` },
    });
    await expectRefusalPage(res, 400, 'did not sign you in');
  });

  it('a next with control characters, or too long, starts the sign-in with next / (not a 500)', async () => {
    for (const next of ['%00', `/${'a'.repeat(5000)}`]) {
      const res = await fetch(`${base}/auth/oidc/start?next=${next}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const state = new URL(res.headers.get('location')!).searchParams.get('state')!;
      const [row] = await sql(`select next_path from oidc_logins where state_hash = encode(sha256(?::bytea), 'hex')`, [state]);
      expect(row.next_path).toBe('/');
    }
  });

  it('a code the provider does not accept is a 400 page (the request’s fault), not a 502', async () => {
    const started = await fetch(`${base}/auth/oidc/start`, { redirect: 'manual' });
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const res = await fetch(`${base}/auth/oidc/callback?code=made-up&state=${state}&iss=${encodeURIComponent(idp.issuer)}`, {
      redirect: 'manual',
      headers: { cookie: `fluxdesk_oidc=${state}` },
    });
    await expectRefusalPage(res, 400, 'did not accept this sign-in');
  });

  it('next that is not a same-origin path becomes /', async () => {
    const user = await newUser(h);
    idp.accounts.set('nexter', { email: user.email });
    const { callback } = await signInThroughProvider('nexter', { next: '//evil.example/' });
    expect(callback.headers.get('location')).toBe('/');
  });

  it('an unreachable provider is a 503 page (discovery is tried again on the next sign-in)', async () => {
    const port = await freePort();
    const dead = await freePort();
    const down = Fastify();
    await registerAuthRoutes(down, {
      deps: h.svc.deps,
      publicBaseUrl: `http://127.0.0.1:${port}`,
      errorsBaseUrl: `http://127.0.0.1:${port}/errors`,
      oidc: { issuerUrl: `http://127.0.0.1:${dead}`, clientId: 'x', clientSecret: null, trustEmail: false },
    });
    await down.listen({ port, host: '127.0.0.1' });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/auth/oidc/start`, { redirect: 'manual' });
        expect(res.status).toBe(503);
        expect(await res.text()).toContain('could not be reached');
      }
    } finally {
      await down.close();
    }
  });

  it('the harness service (no OIDC settings) answers start with a 404 page, not a redirect', async () => {
    const res = await fetch(`${h.baseUrl}/auth/oidc/start`, { redirect: 'manual' });
    expect(res.status).toBe(404);
    const err = await createClient(AccountService, transportFor(h, 'connect', [web('fluxdesk_session=fds_nope', 'x')]))
      .listPersonalTokens({})
      .catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);
    expect((err as ConnectError).findDetails(ErrorInfoSchema)[0]?.code).toBe('session_expired');
  });
});

describe('identity at the provider (issuer and sub)', () => {
  const identities = (userId: string) => sql(`select issuer, subject, email_at_binding from oidc_identities where user_id = ?`, [userId]);
  const sessionsOf = (userId: string) => sql(`select id from web_sessions where user_id = ?`, [userId]);
  const refusals = (subject: string) =>
    sql(`select actor_user_id, summary from audit_log where action = 'web.sign_in.refused' and summary->>'subject' = ?`, [subject]);

  it('the first sign-in binds the account to the provider’s issuer and sub', async () => {
    const user = await newUser(h);
    idp.accounts.set('binder', { email: user.email });
    expect((await signInThroughProvider('binder')).callback.status).toBe(303);
    expect(await identities(user.userId)).toEqual([{ issuer: idp.issuer, subject: 'binder', email_at_binding: user.email }]);
    // Signing in again keeps the one binding.
    expect((await signInThroughProvider('binder')).callback.status).toBe(303);
    expect(await identities(user.userId)).toHaveLength(1);
  });

  it('an email changed at the provider still signs in the bound user, and cannot reach the account of that email', async () => {
    const mallory = await newUser(h);
    const victim = await newUser(h);
    idp.accounts.set('mallory', { email: mallory.email });
    expect((await signInThroughProvider('mallory')).callback.status).toBe(303);
    // Mallory sets the victim's address at the provider (verified or not): still Mallory.
    idp.accounts.set('mallory', { email: victim.email, email_verified: true });
    const { callback, jar } = await signInThroughProvider('mallory');
    expect(callback.status).toBe(303);
    const rows = await sql(`select user_id from web_sessions where token_hash = encode(sha256(?::bytea), 'hex')`, [jar.values.get('fluxdesk_session')]);
    expect(rows).toEqual([{ user_id: mallory.userId }]);
    expect(await sessionsOf(victim.userId)).toEqual([]);
    expect(await identities(victim.userId)).toEqual([]);
  });

  it('another identity claiming a bound account’s email (verified) is refused and audited', async () => {
    const victim = await newUser(h);
    idp.accounts.set('victim', { email: victim.email });
    expect((await signInThroughProvider('victim')).callback.status).toBe(303);
    const sessionsBefore = (await sessionsOf(victim.userId)).length;
    idp.accounts.set('impostor', { email: victim.email, email_verified: true });
    const { callback, jar } = await signInThroughProvider('impostor');
    await expectRefusalPage(callback, 403, 'already linked to another identity');
    expect(jar.values.has('fluxdesk_session')).toBe(false);
    expect(await sessionsOf(victim.userId)).toHaveLength(sessionsBefore);
    expect(await identities(victim.userId)).toEqual([{ issuer: idp.issuer, subject: 'victim', email_at_binding: victim.email }]);
    expect(await refusals('impostor')).toEqual([
      {
        actor_user_id: victim.userId,
        summary: { reason: 'identity_conflict', issuer: idp.issuer, subject: 'impostor', email: victim.email, email_verified: true },
      },
    ]);
  });

  it('an unverified email never binds: refused and audited, and the account stays free for its owner', async () => {
    const user = await newUser(h);
    idp.accounts.set('squatter', { email: user.email, email_verified: false });
    await expectRefusalPage((await signInThroughProvider('squatter')).callback, 403, 'verified');
    expect(await identities(user.userId)).toEqual([]);
    expect(await refusals('squatter')).toEqual([
      { actor_user_id: null, summary: { reason: 'email_not_verified', issuer: idp.issuer, subject: 'squatter', email: user.email, email_verified: false } },
    ]);
    // The real owner, verified, signs in and binds.
    idp.accounts.set('owner', { email: user.email });
    expect((await signInThroughProvider('owner')).callback.status).toBe(303);
    expect(await identities(user.userId)).toEqual([{ issuer: idp.issuer, subject: 'owner', email_at_binding: user.email }]);
  });

  it('a missing email_verified claim is refused, unless OIDC_TRUST_EMAIL is set; an explicit false is refused either way', async () => {
    const user = await newUser(h);
    idp.accounts.set('silent', { email: user.email, email_verified: null });
    await expectRefusalPage((await signInThroughProvider('silent')).callback, 403, 'verified');
    expect(await refusals('silent')).toEqual([
      { actor_user_id: null, summary: { reason: 'email_not_verified', issuer: idp.issuer, subject: 'silent', email: user.email, email_verified: null } },
    ]);
    const other = await newUser(h);
    idp.accounts.set('denied', { email: other.email, email_verified: false });
    const denied = await signInThroughProvider('denied', { via: trustingBase });
    expect(denied.callback.status).toBe(403);
    expect(await identities(other.userId)).toEqual([]);
    // The trusting front: the silent provider's email is taken as verified.
    const trusted = await signInThroughProvider('silent', { via: trustingBase });
    expect(trusted.callback.status).toBe(303);
    expect(await identities(user.userId)).toEqual([{ issuer: idp.issuer, subject: 'silent', email_at_binding: user.email }]);
  });

  it('a bound user offboarded since is refused (audited), whatever the email', async () => {
    const leaver = await newUser(h);
    idp.accounts.set('bound-leaver', { email: leaver.email });
    expect((await signInThroughProvider('bound-leaver')).callback.status).toBe(303);
    await sql(`update users set status = 'offboarded' where id = ?`, [leaver.userId]);
    await expectRefusalPage((await signInThroughProvider('bound-leaver')).callback, 403, 'is not active');
    expect((await refusals('bound-leaver')).map((r) => r.summary.reason)).toEqual(['user_inactive']);
  });
});
