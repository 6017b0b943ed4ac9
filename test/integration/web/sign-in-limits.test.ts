// The anonymous sign-in routes count per client address (docs/web-sign-in.md "Limits"): link
// redemption 20 a minute, OIDC start and callback 120 a minute each, in Redis; the client address
// from X-Forwarded-For behind TRUST_PROXY_HOPS proxies; a bound on pending OIDC sign-ins. The
// service's own listener, with SSO configured against a real in-process provider.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newUser, operator, startHarness, type Harness } from '../../helpers/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { freePort } from '../../helpers/redis-server.js';

let h: Harness;
let idp: TestOidcProvider;
beforeAll(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({ redirectUris: [`${base}/auth/oidc/callback`] });
  // One proxy in front: the client is the last X-Forwarded-For entry (the one the proxy appended).
  h = await startHarness({ env: { ...idp.env, PORT: String(port), PUBLIC_BASE_URL: base, TRUST_PROXY_HOPS: '1' } });
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});
afterEach(() => h.clock.reset());

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
let nextAddress = 1;
/** A documentation address (RFC 5737) no other test of this file uses. */
const freshAddress = () => `198.51.100.${nextAddress++}`;

async function loginLinkPath(email: string): Promise<string> {
  return new URL((await operator<{ url: string }>(h, 'web.create_login_link', { email })).url).pathname;
}

const post = (path: string, from: string) => fetch(`${h.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'x-forwarded-for': from } });
const get = (path: string, from: string, cookie?: string) =>
  fetch(`${h.baseUrl}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': from, ...(cookie ? { cookie } : {}) } });

async function denials(budget: string): Promise<number> {
  const text = await h.svc.deps.metrics.scrape();
  const line = text.split('\n').find((l) => l.startsWith(`fluxdesk_rate_limit_denials_total{budget="${budget}",window="minute"}`));
  return Number(line?.split(' ').at(-1));
}

async function expectTooMany(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  const wait = Number(res.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  const html = await res.text();
  expect(html).toContain('Too many sign-in attempts');
  expect(html).toContain(`Wait ${wait} seconds`);
}

describe('login link redemption: 20 a minute per address', () => {
  it('the 21st POST from one address is a 429 page, while another address still signs in', async () => {
    const a = freshAddress();
    for (let i = 0; i < 20; i++) expect((await post(`/auth/link/fdl_guess${i}`, a)).status).toBe(400);
    await expectTooMany(await post('/auth/link/fdl_guess-21', a));
    // A real link from the limited address is refused too, and stays usable: nothing was consumed.
    const user = await newUser(h);
    const link = await loginLinkPath(user.email);
    await expectTooMany(await post(link, a));
    expect(await sql(`select used_at from login_links where user_id = ?`, [user.userId])).toEqual([{ used_at: null }]);
    // Another address passes and signs in with that link.
    const other = await post(link, freshAddress());
    expect(other.status).toBe(303);
    expect(await sql(`select id from web_sessions where user_id = ?`, [user.userId])).toHaveLength(1);
    expect(await denials('sign_in_link')).toBe(2);
  });

  it('the window slides: a minute later the address is served again', async () => {
    const a = freshAddress();
    for (let i = 0; i < 20; i++) await post(`/auth/link/fdl_x${i}`, a);
    expect((await post('/auth/link/fdl_over', a)).status).toBe(429);
    h.clock.advance(61_000);
    expect((await post('/auth/link/fdl_later', a)).status).toBe(400);
  });

  it('only the hop the trusted proxy appended counts: entries a client wrote itself do not move it to another window', async () => {
    const a = freshAddress();
    for (let i = 0; i < 20; i++) await post(`/auth/link/fdl_s${i}`, `203.0.113.${i}, ${a}`);
    await expectTooMany(await post('/auth/link/fdl_spoof', `203.0.113.250, ${a}`));
  });

  it('IPv6 clients count per /64', async () => {
    for (let i = 0; i < 20; i++) await post(`/auth/link/fdl_v6${i}`, `2001:db8:77:1::${(i + 1).toString(16)}`);
    await expectTooMany(await post('/auth/link/fdl_v6over', '2001:db8:77:1:ffff::1'));
    expect((await post('/auth/link/fdl_v6other', '2001:db8:77:2::1')).status).toBe(400);
  });
});

describe('OIDC start and callback: 120 a minute per address each', () => {
  it('the 121st start from one address is a 429 page and stores nothing; another address is sent to the provider', async () => {
    const a = freshAddress();
    const before = Number((await sql(`select count(*) as n from oidc_logins`))[0].n);
    for (let i = 0; i < 120; i++) expect((await get('/auth/oidc/start', a)).status).toBe(302);
    expect(Number((await sql(`select count(*) as n from oidc_logins`))[0].n)).toBe(before + 120);
    await expectTooMany(await get('/auth/oidc/start', a));
    expect(Number((await sql(`select count(*) as n from oidc_logins`))[0].n)).toBe(before + 120);
    const other = await get('/auth/oidc/start', freshAddress());
    expect(other.status).toBe(302);
    expect(new URL(other.headers.get('location')!).origin).toBe(idp.issuer);
  });

  it('callbacks count whatever they carry: the 121st from one address is a 429 page; another address gets the usual answer', async () => {
    const a = freshAddress();
    for (let i = 0; i < 120; i++) expect((await get(`/auth/oidc/callback?state=s${i}&code=c`, a)).status).toBe(400);
    // Even a callback of a real sign-in of this address is refused now, and its state stays unused.
    const started = await get('/auth/oidc/start', a);
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    await expectTooMany(await get(`/auth/oidc/callback?state=${state}&code=c`, a, `fluxdesk_oidc=${state}`));
    expect((await sql(`select used_at from oidc_logins where created_at > now() - interval '1 minute' and used_at is not null`)).length).toBe(0);
    expect((await get(`/auth/oidc/callback?state=z&code=c`, freshAddress())).status).toBe(400);
  });
});

describe('pending OIDC sign-ins', () => {
  it('at 20,000 started and unfinished, a start is a 503 page with Retry-After; expired ones do not count', async () => {
    const now = h.clock.now();
    const fill = (expiresAt: Date) =>
      sql(
        `insert into oidc_logins (id, state_hash, code_verifier, nonce, next_path, created_at, expires_at, used_at)
         select gen_random_uuid(), md5(random()::text || g), 'v', 'n', '/', ?::timestamptz, ?::timestamptz, null from generate_series(1, ?) g`,
        [now.toISOString(), expiresAt.toISOString(), 20_000],
      );
    await sql(`delete from oidc_logins`);
    await fill(new Date(now.getTime() - 1000));
    expect((await get('/auth/oidc/start', freshAddress())).status).toBe(302);
    await sql(`delete from oidc_logins`);
    await fill(new Date(now.getTime() + 600_000));
    const res = await get('/auth/oidc/start', freshAddress());
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.text()).toContain('Too many sign-ins are in progress');
    expect(Number((await sql(`select count(*) as n from oidc_logins`))[0].n)).toBe(20_000);
    await sql(`delete from oidc_logins`);
    expect((await get('/auth/oidc/start', freshAddress())).status).toBe(302);
  });
});
