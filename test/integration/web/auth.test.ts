// Web sign-in by one-time login link, server-side sessions and the session as a Connect caller
// (docs/web-sign-in.md): single use, expiry, refusals, cookie attributes, CSRF on every
// Connect call and on sign-out, rotation, sign out and sign out everywhere, idle and absolute expiry.
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { runOperation } from '../../../src/app/run-operation.js';
import type { Logger } from '../../../src/domain/context.js';
import { loadConfig } from '../../../src/config.js';
import { createLoginLink } from '../../../src/domain/web/create-login-link.js';
import { pruneSignInTask } from '../../../src/domain/web/prune-sign-in.js';
import { parseCommand } from '../../../src/transports/cli/commands.js';
import { bearer, closeSessions, protoEvent, transportFor } from '../../helpers/connect.js';
import { newUser, operator, startHarness, uniqueEmail, type Harness, type TestUser } from '../../helpers/harness.js';
import { cookiesOf } from '../../helpers/cookies.js';

let h: Harness;
beforeAll(async () => {
  // One proxy in front, so each redemption below can come from a client address of its own: the
  // per-address window (20 a minute, sign-in-limits.test.ts) is not what these tests are about.
  h = await startHarness({ env: { ALLOWED_EMAIL_DOMAINS: 'example.test', TRUST_PROXY_HOPS: '1' } });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});
afterEach(() => h.clock.reset());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

/** What `fluxdesk login-link --email E` runs (the operator operation, as the CLI's runner call does). */
async function loginLink(email: string): Promise<{ url: string; expiresAt: string }> {
  const r = await runOperation(h.svc.deps, createLoginLink, {
    surface: 'cli',
    requestId: 'test-login-link',
    input: { email },
    log: h.svc.deps.log as Logger,
    system: true,
  });
  return r.output;
}

async function refusalOf(p: Promise<unknown>): Promise<{ kind: string; code: string; extra: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as { kind: string; code: string; extra: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

interface Session {
  cookie: string;
  csrf: string;
  session: string;
}

let clients = 0;
/** Redeems a link URL the way the page's form does (POST, no Origin), as a browser of its own; the session from its cookies. */
async function redeem(url: string, init: { headers?: Record<string, string> } = {}): Promise<Response> {
  const u = new URL(url);
  const client = `10.${(++clients >> 8) & 255}.${clients & 255}.1`;
  return fetch(`${h.baseUrl}${u.pathname}${u.search}`, { method: 'POST', redirect: 'manual', headers: { 'x-forwarded-for': client, ...init.headers } });
}

async function signIn(user: TestUser, headers?: Record<string, string>): Promise<Session> {
  const { url } = await loginLink(user.email);
  const res = await redeem(url, { headers });
  expect(res.status).toBe(303);
  const cs = cookiesOf(res);
  const session = cs.find((c) => c.name === 'fluxdesk_session')!.value;
  const csrf = cs.find((c) => c.name === 'fluxdesk_csrf')!.value;
  return { session, csrf, cookie: `fluxdesk_session=${session}; fluxdesk_csrf=${csrf}` };
}

const web =
  (cookie: string | undefined, csrf: string | undefined): Interceptor =>
  (next) =>
  async (req) => {
    if (cookie !== undefined) req.header.set('cookie', cookie);
    if (csrf !== undefined) req.header.set('x-csrf-token', csrf);
    return next(req);
  };
const accountAs = (s: { cookie?: string; csrf?: string }, interceptors: Interceptor[] = []) =>
  createClient(AccountService, transportFor(h, 'connect', [web(s.cookie, s.csrf), ...interceptors]));

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const codeOf = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0]?.code;

async function expectSessionRefused(s: Session, code = 'session_expired') {
  const err = await connectErrorOf(accountAs(s).listPersonalTokens({}));
  expect(err.code).toBe(Code.Unauthenticated);
  expect(codeOf(err)).toBe(code);
}

async function personalToken(user: TestUser, label: string): Promise<string> {
  const t = await operator<{ tokenId: string }>(h, 'tokens.create_personal', { email: user.email, label, daily_limit: 200 });
  return t.tokenId;
}

describe('login links', () => {
  it('the CLI command maps to the operator operation', () => {
    expect(parseCommand(['login-link', '--email', 'a@example.test'])).toEqual({ op: 'web.create_login_link', input: { email: 'a@example.test' } });
  });

  it('gives {url, expiresAt}: PUBLIC_BASE_URL/auth/link/<token>, valid 10 minutes', async () => {
    const user = await newUser(h);
    const out = await loginLink(user.email.toUpperCase());
    expect(Object.keys(out).sort()).toEqual(['expiresAt', 'url']);
    expect(out.url).toMatch(new RegExp(`^${h.baseUrl.replace(/[.]/g, '\\.')}/auth/link/fdl_[A-Za-z0-9_-]{43}$`));
    expect(new Date(out.expiresAt).getTime() - h.clock.now().getTime()).toBeGreaterThan(9 * MINUTE);
    expect(new Date(out.expiresAt).getTime() - h.clock.now().getTime()).toBeLessThanOrEqual(10 * MINUTE);
    // Only its hash is stored.
    const token = out.url.split('/').pop()!;
    const rows = await sql(`select token_hash from login_links where user_id = ?`, [user.userId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
  });

  it('GET shows a page with a "Sign in" button and signs nobody in; POST redeems once', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    const path = new URL(url).pathname;
    const page = await fetch(`${h.baseUrl}${path}?next=/inbox/abc`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.getSetCookie()).toEqual([]);
    const html = await page.text();
    expect(html).toMatch(/<title>[^<]+<\/title>/);
    expect(html).toContain('<main>');
    expect(html).toContain('<h1>');
    expect(html).toMatch(/<form method="post" action="\/auth\/link\/fdl_[^"?]+\?next=%2Finbox%2Fabc">/);
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).not.toMatch(/<script|style=/);

    const first = await redeem(`${url}?next=/inbox/abc`);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/inbox/abc');
    const second = await redeem(url);
    expect(second.status).toBe(400);
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(await second.text()).toContain('unknown, has expired or was already used');
    const sessions = await sql(`select count(*)::int as n from web_sessions where user_id = ?`, [user.userId]);
    expect(sessions[0].n).toBe(1);
  });

  it('sets the contract cookies: HttpOnly session, readable CSRF, SameSite=Lax, Path=/, not Secure over http', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    const res = await redeem(url);
    const cs = cookiesOf(res);
    const session = cs.find((c) => c.name === 'fluxdesk_session')!;
    const csrf = cs.find((c) => c.name === 'fluxdesk_csrf')!;
    expect(session.value).toMatch(/^fds_[A-Za-z0-9_-]{43}$/);
    expect(session.attrs).toMatchObject({ httponly: true, samesite: 'Lax', path: '/' });
    expect(session.attrs.secure).toBeUndefined();
    expect(Number(session.attrs['max-age'])).toBeGreaterThanOrEqual(7 * 24 * 3600 - 1);
    expect(Number(session.attrs['max-age'])).toBeLessThanOrEqual(7 * 24 * 3600);
    expect(csrf.value).toMatch(/^fdc_[A-Za-z0-9_-]{43}$/);
    expect(csrf.attrs).toMatchObject({ samesite: 'Lax', path: '/' });
    expect(csrf.attrs.httponly).toBeUndefined();
    // Only hashes in the table.
    const rows = await sql(`select token_hash, csrf_hash from web_sessions where user_id = ?`, [user.userId]);
    expect(JSON.stringify(rows)).not.toContain(session.value);
    expect(JSON.stringify(rows)).not.toContain(csrf.value);
  });

  it('an expired link signs nobody in (clock past 10 minutes)', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    h.clock.advance(10 * MINUTE + 1000);
    const res = await redeem(url);
    expect(res.status).toBe(400);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('an unknown token, and a link of a user offboarded since, sign nobody in', async () => {
    expect((await redeem(`${h.baseUrl}/auth/link/fdl_${'x'.repeat(43)}`)).status).toBe(400);
    expect((await redeem(`${h.baseUrl}/auth/link/${'%2F'.repeat(3)}`)).status).toBe(400);
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    await sql(`update users set status = 'offboarded' where id = ?`, [user.userId]);
    expect((await redeem(url)).status).toBe(400);
  });

  it('a POST from another site (Origin not PUBLIC_BASE_URL) is refused and leaves the link usable', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    const foreign = await redeem(url, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.getSetCookie()).toEqual([]);
    const own = await redeem(url, { headers: { origin: new URL(h.baseUrl).origin } });
    expect(own.status).toBe(303);
  });

  it('next must be a same-origin path, else /', async () => {
    for (const [next, to] of [
      ['/settings/integrations?x=1', '/settings/integrations?x=1'],
      ['//evil.example/x', '/'],
      ['https://evil.example/', '/'],
      ['/\\evil.example', '/'],
      ['javascript:alert(1)', '/'],
    ]) {
      const user = await newUser(h);
      const { url } = await loginLink(user.email);
      const res = await redeem(`${url}?next=${encodeURIComponent(next!)}`);
      expect(res.headers.get('location'), next).toBe(to);
    }
  });

  it('refuses unknown emails, inactive users and emails outside ALLOWED_EMAIL_DOMAINS, creating nothing', async () => {
    const before = (await sql(`select count(*)::int as n from login_links`))[0].n;
    const ghost = uniqueEmail('ghost');
    expect(await refusalOf(loginLink(ghost))).toMatchObject({ kind: 'unprocessable', code: 'user_not_found', extra: { email: ghost } });
    expect(await refusalOf(loginLink('someone@elsewhere.test'))).toMatchObject({
      kind: 'unprocessable',
      code: 'domain_not_allowed',
      extra: { domain: 'elsewhere.test' },
    });
    const leaver = await newUser(h);
    await sql(`update users set status = 'offboarded' where id = ?`, [leaver.userId]);
    expect(await refusalOf(loginLink(leaver.email))).toMatchObject({ kind: 'conflict', code: 'user_inactive' });
    expect(await refusalOf(loginLink('not-an-email'))).toMatchObject({ kind: 'validation' });
    expect((await sql(`select count(*)::int as n from login_links`))[0].n).toBe(before);
  });
});

describe('the sign-in page', () => {
  it('is a small accessible page without SSO when OIDC is not configured', async () => {
    const res = await fetch(`${h.baseUrl}/auth/login?next=/inbox/x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).toContain('<h1>Sign in to fluxdesk</h1>');
    expect(html).toContain('<link rel="stylesheet" href="/auth/auth.css">');
    expect(html).not.toContain('Sign in with SSO');
    expect((await fetch(`${h.baseUrl}/auth/auth.css`)).headers.get('content-type')).toContain('text/css');
    expect((await fetch(`${h.baseUrl}/auth/oidc/start`, { redirect: 'manual' })).status).toBe(404);
  });
});

describe('a session as a Connect caller', () => {
  it('authenticates AccountService calls as the session user; another user sees only their own tokens', async () => {
    const alice = await newUser(h);
    const bob = await newUser(h);
    const aliceToken = await personalToken(alice, 'alice-token');
    await personalToken(bob, 'bob-token');
    const a = await signIn(alice);
    const b = await signIn(bob);
    const aliceList = await accountAs(a).listPersonalTokens({});
    expect(aliceList.tokens.map((t) => t.label)).toEqual(['alice-token']);
    const bobList = await accountAs(b).listPersonalTokens({});
    expect(bobList.tokens.map((t) => t.label)).toEqual(['bob-token']);
    // Bob's session cannot act on Alice's token.
    const err = await connectErrorOf(accountAs(b).disablePersonalToken({ tokenId: aliceToken }));
    expect([Code.NotFound, Code.PermissionDenied]).toContain(err.code);
    expect((await accountAs(a).listPersonalTokens({})).tokens[0]!.status).toBe('active');
    // A writing call works too (issue a token from the session), counted per session.
    const issued = await accountAs(a).issuePersonalToken({ label: 'from-web' });
    expect(issued.tokenValue).toMatch(/^svc-in-pers-/);
    // Audit rows name the session where a token id goes (audit_log.token_id has no foreign key).
    const sessionId = (await sql(`select id from web_sessions where user_id = ?`, [alice.userId]))[0].id;
    const audit = await sql(`select token_id, source from audit_log where action = 'web.session.created' and actor_user_id = ?`, [alice.userId]);
    expect(audit).toEqual([{ token_id: sessionId, source: 'web' }]);
  });

  it('refuses a call without the CSRF header, or with a wrong one (csrf_mismatch), and changes nothing', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    const none = await connectErrorOf(accountAs({ cookie: s.cookie }).issuePersonalToken({ label: 'x' }));
    expect(none.code).toBe(Code.Unauthenticated);
    expect(codeOf(none)).toBe('csrf_mismatch');
    const wrong = await connectErrorOf(accountAs({ cookie: s.cookie, csrf: `fdc_${'A'.repeat(43)}` }).issuePersonalToken({ label: 'x' }));
    expect(codeOf(wrong)).toBe('csrf_mismatch');
    // Another session's CSRF token is wrong for this one.
    const other = await signIn(await newUser(h));
    expect(codeOf(await connectErrorOf(accountAs({ cookie: s.cookie, csrf: other.csrf }).listPersonalTokens({})))).toBe('csrf_mismatch');
    expect((await accountAs(s).listPersonalTokens({})).tokens).toEqual([]);
  });

  it('an unknown session cookie is session_expired; no cookie and no bearer stays missing_or_invalid_authorization', async () => {
    await expectSessionRefused({ cookie: `fluxdesk_session=fds_${'z'.repeat(43)}`, csrf: 'x', session: '' });
    const err = await connectErrorOf(accountAs({}).listPersonalTokens({}));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(codeOf(err)).toBe('missing_or_invalid_authorization');
  });

  it('a bearer token wins over a session cookie (bearer callers unchanged)', async () => {
    const alice = await newUser(h);
    const bob = await newUser(h);
    await personalToken(bob, 'bob-only');
    const a = await signIn(alice);
    const bobAgent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: bob.email });
    const list = await accountAs(a, [bearer(bobAgent.token)]).listPersonalTokens({});
    expect(list.tokens.map((t) => t.label)).toEqual(['bob-only']);
  });

  it('rate limits count per session (the session budget, 300 per minute); an inbound-token operation still needs a bearer token', async () => {
    const user = await newUser(h);
    const one = await signIn(user);
    const two = await signIn(user);
    const remaining = async (s: Session) => {
      let headers: Headers | undefined;
      await accountAs(s).listPersonalTokens({}, { onHeader: (hd) => (headers = hd) });
      return { limit: headers?.get('x-ratelimit-limit'), remaining: Number(headers?.get('x-ratelimit-remaining')) };
    };
    const a1 = await remaining(one);
    const a2 = await remaining(one);
    const b1 = await remaining(two);
    expect(a1.limit).toBe('300');
    expect(a2.remaining).toBe(a1.remaining - 1);
    expect(b1.remaining).toBe(a1.remaining);
    const events = createClient(EventService, transportFor(h, 'connect', [web(one.cookie, one.csrf)]));
    const err = await connectErrorOf(events.publish({ event: protoEvent(h) }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(codeOf(err)).toBe('missing_or_invalid_authorization');
  });

  it('a session of a user offboarded since is refused', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    await sql(`update users set status = 'offboarded' where id = ?`, [user.userId]);
    await expectSessionRefused(s);
  });
});

describe('session lifetime', () => {
  it('rotation: signing in again from a browser with a session ends that session and makes a new one', async () => {
    const user = await newUser(h);
    const first = await signIn(user);
    const second = await signIn(user, { cookie: first.cookie });
    expect(second.session).not.toBe(first.session);
    await expectSessionRefused(first);
    expect((await accountAs(second).listPersonalTokens({})).tokens).toEqual([]);
    const rows = await sql(`select id, revoked_at from web_sessions where user_id = ? order by created_at`, [user.userId]);
    expect(rows).toHaveLength(2);
    expect(rows[0].id).not.toBe(rows[1].id);
    expect(rows[0].revoked_at).not.toBeNull();
  });

  it('idle 12 hours ends a session; each call slides it (last_seen_at written at most once a minute)', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    const seen = async () => new Date((await sql(`select last_seen_at from web_sessions where user_id = ?`, [user.userId]))[0].last_seen_at).getTime();
    const t0 = await seen();
    await accountAs(s).listPersonalTokens({});
    expect(await seen()).toBe(t0);
    h.clock.advance(11 * HOUR);
    await accountAs(s).listPersonalTokens({});
    expect(await seen()).toBeGreaterThan(t0);
    h.clock.advance(11 * HOUR);
    await accountAs(s).listPersonalTokens({});
    h.clock.advance(12 * HOUR + MINUTE);
    await expectSessionRefused(s);
  });

  it('7 days after sign-in a session ends even when used all along', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    for (let i = 0; i < 15; i++) {
      h.clock.advance(11 * HOUR);
      await accountAs(s).listPersonalTokens({});
    }
    h.clock.advance(7 * 24 * HOUR - 15 * 11 * HOUR + MINUTE);
    await expectSessionRefused(s);
  });
});

describe('sign out', () => {
  const post = (path: string, s: Session | { cookie: string }, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });

  it('POST /auth/logout with the csrf field ends this session only and clears the cookies', async () => {
    const user = await newUser(h);
    const here = await signIn(user);
    const there = await signIn(user);
    const res = await post('/auth/logout', here, { csrf: here.csrf });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/auth/login');
    const cleared = cookiesOf(res);
    for (const name of ['fluxdesk_session', 'fluxdesk_csrf']) {
      const c = cleared.find((x) => x.name === name)!;
      expect(c.value).toBe('');
      expect(c.attrs.expires ?? c.attrs['max-age']).toBeDefined();
    }
    await expectSessionRefused(here);
    expect((await accountAs(there).listPersonalTokens({})).tokens).toEqual([]);
  });

  it('a sign-out without the csrf field, with a wrong one, or from another site is refused and ends nothing', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    expect((await post('/auth/logout', s, {})).status).toBe(403);
    expect((await post('/auth/logout-everywhere', s, { csrf: 'wrong' })).status).toBe(403);
    expect((await post('/auth/logout', s, { csrf: s.csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await accountAs(s).listPersonalTokens({})).tokens).toEqual([]);
  });

  it('POST /auth/logout-everywhere ends every session of the user, and no one else’s', async () => {
    const user = await newUser(h);
    const other = await signIn(await newUser(h));
    const one = await signIn(user);
    const two = await signIn(user);
    const res = await post('/auth/logout-everywhere', one, { csrf: one.csrf });
    expect(res.status).toBe(303);
    await expectSessionRefused(one);
    await expectSessionRefused(two);
    expect((await accountAs(other).listPersonalTokens({})).tokens).toEqual([]);
  });

  it('signing out without a session (or twice) just clears the cookies', async () => {
    const res = await post('/auth/logout', { cookie: '' }, {});
    expect(res.status).toBe(303);
    const user = await newUser(h);
    const s = await signIn(user);
    expect((await post('/auth/logout', s, { csrf: s.csrf })).status).toBe(303);
    expect((await post('/auth/logout', s, { csrf: s.csrf })).status).toBe(303);
  });
});

describe('maintenance', () => {
  it('deletes sign-in rows a day after they stopped being usable, and keeps live sessions', async () => {
    const user = await newUser(h);
    const ended = await signIn(user);
    const live = await signIn(user);
    await fetch(`${h.baseUrl}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: ended.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: ended.csrf }).toString(),
    });
    await loginLink(user.email);
    const count = async () => (await sql(`select count(*)::int as n from web_sessions where user_id = ?`, [user.userId]))[0].n;
    expect(await count()).toBe(2);
    await pruneSignInTask.run(h.svc.deps, h.clock.now());
    expect(await count()).toBe(2);
    h.clock.advance(11 * HOUR);
    await accountAs(live).listPersonalTokens({});
    h.clock.advance(11 * HOUR);
    await accountAs(live).listPersonalTokens({});
    h.clock.advance(3 * HOUR);
    await accountAs(live).listPersonalTokens({});
    await pruneSignInTask.run(h.svc.deps, h.clock.now());
    expect(await count()).toBe(1);
    expect((await sql(`select count(*)::int as n from login_links where user_id = ?`, [user.userId]))[0].n).toBe(0);
    expect((await accountAs(live).listPersonalTokens({})).tokens).toEqual([]);
  });
});

describe('hostile input on the sign-in routes (each a case the fuzz suite found)', () => {
  const page = async (res: Response, status: number, text: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('<h1>');
    expect(html).toContain(text);
    expect(html).toContain('href="/auth/login?next=');
  };

  it('a token in the query string is a 400 page on /auth and /errors (not a 500, not a problem document)', async () => {
    await page(await fetch(`${h.baseUrl}/auth/login?access_token=x`), 400, 'never in the query string');
    await page(await fetch(`${h.baseUrl}/errors?token=x`), 400, 'never in the query string');
    // Control: without it, the pages answer.
    expect((await fetch(`${h.baseUrl}/auth/login`)).status).toBe(200);
  });

  it('an undecodable or over-long path segment is a 400 page', async () => {
    await page(await fetch(`${h.baseUrl}/auth/link/%ED%A0%80`), 400, 'percent-encoded UTF-8');
    await page(await fetch(`${h.baseUrl}/auth/link/${'x'.repeat(101)}`), 400, 'longer than 100 characters');
    expect((await fetch(`${h.baseUrl}/auth/link/${'x'.repeat(100)}`)).status).toBe(200);
  });

  it('next with characters outside ASCII is kept percent-encoded (a valid Location), and the sign-in completes', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    const res = await redeem(`${url}?next=${encodeURIComponent('/inbox/€ü')}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/inbox/%E2%82%AC%C3%BC');
  });

  it('a junk session cookie does not block a sign-in (it is no session), and sign-out with it just clears the cookies', async () => {
    const user = await newUser(h);
    const { url } = await loginLink(user.email);
    for (const junk of ['x'.repeat(300), 'fds_%00', 'fds_%01abc']) {
      const out = await fetch(`${h.baseUrl}/auth/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `fluxdesk_session=${junk}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=1',
      });
      expect(out.status).toBe(303);
    }
    const res = await redeem(url, { headers: { cookie: `fluxdesk_session=${'y'.repeat(300)}` } });
    expect(res.status).toBe(303);
    expect(await sql(`select id from web_sessions where user_id = ?`, [user.userId])).toHaveLength(1);
  });

  it('a sign-out whose csrf field has control characters is refused (403) and ends nothing', async () => {
    const user = await newUser(h);
    const s = await signIn(user);
    const res = await fetch(`${h.baseUrl}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=%00',
    });
    await page(res, 403, 'security token');
    expect(await sql(`select revoked_at from web_sessions where user_id = ?`, [user.userId])).toEqual([{ revoked_at: null }]);
  });
});

describe('configuration', () => {
  it('OIDC_ISSUER_URL and OIDC_CLIENT_ID turn SSO on together; the secret is optional', () => {
    expect(loadConfig({}).oidc).toBeNull();
    expect(loadConfig({ OIDC_ISSUER_URL: 'https://sso.example.com/realms/x', OIDC_CLIENT_ID: 'fluxdesk', OIDC_CLIENT_SECRET: 's3cret' }).oidc).toEqual({
      issuerUrl: 'https://sso.example.com/realms/x',
      clientId: 'fluxdesk',
      clientSecret: 's3cret',
      trustEmail: false,
    });
    expect(loadConfig({ OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'fluxdesk' }).oidc?.clientSecret).toBeNull();
    expect(loadConfig({ OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'fluxdesk', OIDC_TRUST_EMAIL: 'true' }).oidc?.trustEmail).toBe(true);
    expect(() => loadConfig({ OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'fluxdesk', OIDC_TRUST_EMAIL: 'yes' })).toThrow(/OIDC_TRUST_EMAIL/);
    expect(() => loadConfig({ OIDC_ISSUER_URL: 'https://sso.example.com' })).toThrow(/OIDC_CLIENT_ID/);
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'x' })).toThrow(/OIDC_ISSUER_URL/);
    expect(() => loadConfig({ OIDC_CLIENT_SECRET: 'x' })).toThrow(/OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ OIDC_ISSUER_URL: 'ftp://sso.example.com', OIDC_CLIENT_ID: 'x' })).toThrow(/OIDC_ISSUER_URL/);
  });
});

describe('under an https PUBLIC_BASE_URL', () => {
  let hs: Harness;
  beforeAll(async () => {
    hs = await startHarness({ env: { PUBLIC_BASE_URL: 'https://fluxdesk.example.com' } });
  });
  afterAll(async () => {
    await hs?.close();
  });

  it('the session cookie is __Host-fluxdesk_session and every cookie is Secure; the link URL is on PUBLIC_BASE_URL', async () => {
    const user = await operator<TestUser>(hs, 'users.create', { email: uniqueEmail(), name: 'Https User' });
    const r = await runOperation(hs.svc.deps, createLoginLink, {
      surface: 'cli',
      requestId: 'https-link',
      input: { email: user.email },
      log: hs.svc.deps.log as Logger,
      system: true,
    });
    expect(r.output.url).toMatch(/^https:\/\/fluxdesk\.example\.com\/auth\/link\/fdl_/);
    const path = new URL(r.output.url).pathname;
    // A POST from another origin (here: the plain-http address) is refused; PUBLIC_BASE_URL's origin is ours.
    expect((await fetch(`${hs.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { origin: hs.baseUrl } })).status).toBe(403);
    const res = await fetch(`${hs.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { origin: 'https://fluxdesk.example.com' } });
    expect(res.status).toBe(303);
    const cs = cookiesOf(res);
    const session = cs.find((c) => c.name === '__Host-fluxdesk_session')!;
    const csrf = cs.find((c) => c.name === '__Host-fluxdesk_csrf')!;
    expect(session.attrs).toMatchObject({ httponly: true, secure: true, samesite: 'Lax', path: '/' });
    expect(session.attrs.domain).toBeUndefined();
    expect(csrf.attrs).toMatchObject({ secure: true, samesite: 'Lax', path: '/' });
    const account = createClient(AccountService, transportFor(hs, 'connect', [web(`__Host-fluxdesk_session=${session.value}`, csrf.value)]));
    expect((await account.listPersonalTokens({})).tokens).toEqual([]);
    // The plain name means nothing here.
    const plain = createClient(AccountService, transportFor(hs, 'connect', [web(`fluxdesk_session=${session.value}`, csrf.value)]));
    expect(codeOf(await connectErrorOf(plain.listPersonalTokens({})))).toBe('missing_or_invalid_authorization');
  });
});

describe('embedded mode (PGlite, the same migration)', () => {
  let he: Harness;
  beforeAll(async () => {
    he = await startHarness({ mode: 'embedded' });
  });
  afterAll(async () => {
    await he?.close();
  });

  it('a login link signs in once and the session authenticates a Connect call', async () => {
    const user = await operator<TestUser>(he, 'users.create', { email: uniqueEmail(), name: 'Embedded User' });
    const r = await runOperation(he.svc.deps, createLoginLink, {
      surface: 'cli',
      requestId: 'embedded-link',
      input: { email: user.email },
      log: he.svc.deps.log as Logger,
      system: true,
    });
    const path = new URL(r.output.url).pathname;
    const res = await fetch(`${he.baseUrl}${path}`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect((await fetch(`${he.baseUrl}${path}`, { method: 'POST', redirect: 'manual' })).status).toBe(400);
    const cs = cookiesOf(res);
    const session = cs.find((c) => c.name === 'fluxdesk_session')!.value;
    const csrf = cs.find((c) => c.name === 'fluxdesk_csrf')!.value;
    const account = createClient(AccountService, transportFor(he, 'connect', [web(`fluxdesk_session=${session}`, csrf)]));
    expect((await account.listPersonalTokens({})).tokens).toEqual([]);
    expect(
      codeOf(await connectErrorOf(createClient(AccountService, transportFor(he, 'connect', [web(`fluxdesk_session=${session}`, 'x')])).listPersonalTokens({}))),
    ).toBe('csrf_mismatch');
  });
});
