// Property: the web routes (docs/web-sign-in.md; src/transports/web/): the sign-in pages and forms,
// the app's routes, its assets and the /errors pages, fed drawn paths, query strings, form bodies,
// cookies and headers, answer without a 5xx (the deliberate 502/503 pages below aside), refuse with
// their HTML page (/auth, /errors) or, outside the web routes, the root problem+json, redirect only
// to a same-origin path or to the identity provider, and sign nobody in nor store anything (one
// oidc_logins row per SSO sign-in started). Also: a login link that looks valid but is not never
// signs in, the real one exactly once; a completed SSO sign-in carrying hostile cookies and headers
// signs its user in and lands on a same-origin path. SSO runs against a real in-process provider.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { RedeemLoginLinkInput } from '../../src/domain/web/redeem-login-link.js';
import { BeginOidcLoginInput } from '../../src/domain/web/begin-oidc-login.js';
import { TakeOidcLoginInput } from '../../src/domain/web/take-oidc-login.js';
import { SignOutInput } from '../../src/domain/web/sign-out.js';
import { WEB_AUDIT } from '../../src/domain/web/start-session.js';
import { cookieNames, secretHash, type CookieNames } from '../../src/domain/web/web-session.rules.js';
import { problemPages } from '../../src/transports/http/status.js';
import { defaultWebDir, WEB_APP_ROUTES } from '../../src/transports/web/web-app.js';
import { newUser, operator, startHarness, type Harness, type TestUser } from '../helpers/harness.js';
import { CookieJar, followProviderForms, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/redis-server.js';
import { arbFromSchema, encodeLoose, hostileString, PROTO_KEYS, type GenContext } from './arbitraries.js';
import { rawRequest, restReasons, type Answer } from './envelopes.js';
import { check, expectHealthy, expectNoViolations, finish, newStats, record, rowCounter, RUNS, short, type RowCounter } from './fuzz-kit.js';

let h: Harness;
let idp: TestOidcProvider;
let rows: RowCounter;
let db: pg.Client;
let base: string;
let names: CookieNames;
let authorizationEndpoint: string;
/** A live session made in setup: drawn cookies carry it, so sign-out's CSRF refusal is reached. */
let session: string;
let ssoUser: TestUser;
const stats = newStats('web.fuzz');

// What a sign-in may leave behind, counted with every table the other fuzz files count: sessions
// (and ended ones: a forged sign-out ends nothing), links (and used ones), SSO sign-ins started,
// identities bound, and the audit rows of sign-ins.
const WEB_COUNTS: Record<string, string> = {
  web_sessions: 'select count(*) from web_sessions',
  web_sessions_ended: 'select count(*) from web_sessions where revoked_at is not null',
  login_links: 'select count(*) from login_links',
  login_links_used: 'select count(*) from login_links where used_at is not null',
  oidc_logins: 'select count(*) from oidc_logins',
  oidc_identities: 'select count(*) from oidc_identities',
  sign_in_audit: `select count(*) from audit_log where action = '${WEB_AUDIT.signedIn}'`,
};

beforeAll(async () => {
  // The provider knows its redirect URI before it starts, so the service's port is chosen first.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({ redirectUris: [`${base}/auth/oidc/callback`] });
  // TRUST_PROXY_HOPS=1: X-Forwarded-For names the client, so drawn addresses spread the per-address
  // sign-in windows (a server that ignores it answers 429 pages instead, which are accepted).
  h = await startHarness({ env: { ...idp.env, PORT: String(port), PUBLIC_BASE_URL: base, ALLOWED_EMAIL_DOMAINS: 'example.test', TRUST_PROXY_HOPS: '1' } });
  names = cookieNames(base);
  authorizationEndpoint = ((await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string })
    .authorization_endpoint;
  const present = await h.svc.deps.orm.em.getConnection().execute(`select to_regclass('oidc_identities') as t`);
  if (!present[0]?.t) delete WEB_COUNTS.oidc_identities;
  rows = await rowCounter(h, WEB_COUNTS);
  db = new pg.Client({ connectionString: h.databaseUrl });
  await db.connect();
  const owner = await newUser(h);
  const signedIn = await send('POST', new URL(await loginLink(owner)).pathname, { 'x-forwarded-for': '10.255.0.1' }, undefined);
  session = sessionCookieOf(signedIn) ?? '';
  expect(session, signedIn.text).toMatch(/^fds_/);
  ssoUser = await newUser(h);
  idp.accounts.set('fuzz-sso', { email: ssoUser.email });
});
afterAll(async () => {
  finish(stats);
  await db?.end();
  await rows?.close();
  await h?.close();
  await idp?.close();
});

/** What `fluxdesk login-link --email E` prints: the link's URL. */
async function loginLink(user: TestUser): Promise<string> {
  return (await operator<{ url: string }>(h, 'web.create_login_link', { email: user.email })).url;
}

let sent = 0;
/** Every 50 requests the clock moves a minute, as the per-address windows would see a real run. */
function tick(): void {
  if (++sent % 50 === 0) h.clock.advance(61_000);
}

// ---------------------------------------------------------------------------------------------
// The routes and what each may answer.

type Family = 'auth' | 'errors' | 'app' | 'static';
interface Target {
  method: 'GET' | 'POST';
  pattern: string;
  family: Family;
  /** Query parameters the route reads. */
  query: string[];
  /** The form field a POST reads. */
  form?: 'next' | 'csrf';
}
const TARGETS: Target[] = [
  { method: 'GET', pattern: '/auth/login', family: 'auth', query: ['next'] },
  { method: 'GET', pattern: '/auth/oidc/start', family: 'auth', query: ['next'] },
  { method: 'GET', pattern: '/auth/oidc/callback', family: 'auth', query: ['state', 'code', 'error', 'iss'] },
  { method: 'GET', pattern: '/auth/link/:token', family: 'auth', query: ['next'] },
  { method: 'POST', pattern: '/auth/link/:token', family: 'auth', query: ['next'], form: 'next' },
  { method: 'POST', pattern: '/auth/logout', family: 'auth', query: [], form: 'csrf' },
  { method: 'POST', pattern: '/auth/logout-everywhere', family: 'auth', query: [], form: 'csrf' },
  { method: 'GET', pattern: '/auth/auth.css', family: 'auth', query: [] },
  ...WEB_APP_ROUTES.map((pattern): Target => ({ method: 'GET', pattern, family: 'app', query: [] })),
  { method: 'GET', pattern: '/assets/*', family: 'static', query: [] },
  { method: 'GET', pattern: '/sw.js', family: 'static', query: [] },
  { method: 'GET', pattern: '/favicon.ico', family: 'static', query: [] },
  { method: 'GET', pattern: '/errors', family: 'errors', query: [] },
  { method: 'GET', pattern: '/errors/:slug', family: 'errors', query: [] },
];

const LINK_PAGE = TARGETS.find((t) => t.method === 'GET' && t.pattern === '/auth/link/:token')!;
const LINK_POST = TARGETS.find((t) => t.method === 'POST' && t.pattern === '/auth/link/:token')!;
const OIDC_START = TARGETS.find((t) => t.pattern === '/auth/oidc/start')!;
const OIDC_CALLBACK = TARGETS.find((t) => t.pattern === '/auth/oidc/callback')!;

/** The web route Fastify gives this request to, if any (GET routes answer HEAD; one trailing slash is ignored). */
function webRoute(method: string, rawPath: string): Target | undefined {
  const m = method === 'HEAD' ? 'GET' : method;
  let p = rawPath.split('?')[0]!;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  // `/auth/link//`: the router drops one slash and matches the last parameter as '' (find-my-way).
  const emptyLast = p.length > 1 && p.endsWith('/');
  const segments = p.split('/');
  return TARGETS.find((t) => {
    if (t.method !== m) return false;
    if (t.pattern.endsWith('/*')) return p.startsWith(t.pattern.slice(0, -1));
    const ps = t.pattern.split('/');
    const last = ps.length - 1;
    return ps.length === segments.length && ps.every((s, i) => (s.startsWith(':') ? segments[i] !== '' || (emptyLast && i === last) : s === segments[i]));
  });
}

/**
 * The 5xx answers the code gives on purpose, each a page saying what to do: an app route without a
 * build (503, Retry-After), SSO whose provider cannot be reached or with too many sign-ins pending
 * (503), and a callback whose code the provider would not exchange (502).
 */
function deliberate5xx(route: Target | undefined, a: Answer): boolean {
  if (!/^text\/html/.test(a.headers.get('content-type') ?? '')) return false;
  if (a.status === 503) return route?.family === 'app' || route?.pattern === '/auth/oidc/start';
  return a.status === 502 && route?.pattern === '/auth/oidc/callback';
}

/** A same-origin path (one leading `/`, not `//` or `/\`, no control characters), as `next` must be. */
function sameOriginPath(location: string): boolean {
  return /^\/(?![/\\])/.test(location) && !/[\u0000-\u001f\u007f]/.test(location) && new URL(location, base).origin === base;
}

function sessionCookieOf(a: Answer): string | undefined {
  for (const c of a.headers.getSetCookie()) {
    const pair = c.split(';')[0]!;
    const eq = pair.indexOf('=');
    const value = pair.slice(eq + 1).trim();
    if (pair.slice(0, eq).trim() === names.session && value !== '' && !/max-age=0|expires=thu, 01 jan 1970/i.test(c)) return value;
  }
  return undefined;
}

/** A page of this service: HTML under the strict CSP, a title; the sign-in and error pages an h1 and nothing echoed raw. */
function pageReasons(route: Target | undefined, method: string, a: Answer, refusal: boolean): string[] {
  const r: string[] = [];
  const ct = a.headers.get('content-type') ?? '';
  if (!/^text\/html/.test(ct)) return [`${a.status} answered ${ct || 'without a content-type'}, not an HTML page: ${short(a.text, 160)}`];
  if (!(a.headers.get('content-security-policy') ?? '').includes("default-src 'self'")) r.push('page without the strict CSP');
  if (a.headers.get('x-content-type-options') !== 'nosniff') r.push('page without X-Content-Type-Options: nosniff');
  if (method === 'HEAD') return r;
  if (!/<title>[^<]+<\/title>/.test(a.text)) r.push('page without a <title>');
  if (route?.family === 'auth' || route?.family === 'errors') {
    if (!a.text.includes('<h1>')) r.push('page without an <h1>');
    if (a.text.includes('<x-fuzz>') || /<script/i.test(a.text)) r.push('drawn text in the page unescaped');
  }
  if (refusal && route?.family === 'auth' && !a.text.includes('href="/auth/login?next=')) r.push('refusal page without the way back to sign-in');
  return r;
}

function redirectReasons(route: Target | undefined, a: Answer): string[] {
  const r: string[] = [];
  if (a.status !== 302 && a.status !== 303) r.push(`redirect status ${a.status}`);
  const location = a.headers.get('location');
  if (!location) return [...r, 'redirect without Location'];
  if (route?.pattern === '/auth/oidc/start' && location.startsWith(`${authorizationEndpoint}?`)) {
    const q = new URL(location).searchParams;
    if (q.get('redirect_uri') !== `${base}/auth/oidc/callback`) r.push(`redirect_uri ${q.get('redirect_uri')}`);
    if (q.get('client_id') !== idp.clientId) r.push(`client_id ${q.get('client_id')}`);
    if (q.get('code_challenge_method') !== 'S256') r.push('no PKCE S256');
    if (!/^[A-Za-z0-9_-]{43}$/.test(q.get('state') ?? '')) r.push(`state ${q.get('state')}`);
  } else if (!sameOriginPath(location)) r.push(`redirect to ${short(location, 200)}`);
  return r;
}

/** Everything an answer to a drawn request may break, whatever was drawn (empty: fine). */
function answerReasons(route: Target | undefined, method: string, a: Answer): string[] {
  // Refused by Node's HTTP parser before any route ran (URL or headers over 16 KB, a bad Host):
  // no request id, nothing the service rendered; or the connection closed mid-upload after that.
  if (a.status === 0) return [];
  if (!a.headers.has('x-request-id'))
    return [400, 413, 414, 431].includes(a.status) ? [] : [`HTTP ${a.status} without X-Request-Id (Fastify's or Node's own answer): ${short(a.text, 160)}`];
  const r: string[] = [];
  const s = a.status;
  const deliberate = deliberate5xx(route, a);
  if (s >= 500 && !deliberate) r.push(`HTTP ${s}: ${/<title>([^<]*)</.exec(a.text)?.[1] ?? short(a.text, 160)}`);
  if (sessionCookieOf(a) !== undefined) r.push('a session cookie was set');
  if (s >= 300 && s < 400) return [...r, ...redirectReasons(route, a)];
  const ct = a.headers.get('content-type') ?? '';
  if (s >= 400) {
    if (s === 429 && !/^[1-9][0-9]*$/.test(a.headers.get('retry-after') ?? '')) r.push(`429 with Retry-After ${a.headers.get('retry-after')}`);
    if (/^application\/problem\+json/.test(ct)) {
      // The root handlers answer outside the web routes, and for the app's routes and files, which
      // have no refusal page of their own (a missing asset is the root not-found answer).
      if (route?.family === 'auth' || route?.family === 'errors')
        r.push(`${route.method} ${route.pattern} refused with problem+json, not its HTML page: ${short(String(a.body?.detail ?? a.text), 160)}`);
      else if (method !== 'HEAD') r.push(...restReasons(a));
    } else r.push(...pageReasons(route, method, a, true));
    return r;
  }
  if (!route) return [...r, `${s} to a request no web route matches`];
  if (route.pattern === '/favicon.ico') return s === 204 ? r : [...r, `favicon ${s}`];
  if (route.pattern === '/auth/auth.css') return /^text\/css/.test(ct) ? r : [...r, `stylesheet as ${ct}`];
  if (route.family === 'static') return r;
  return [...r, ...pageReasons(route, method, a, false)];
}

// ---------------------------------------------------------------------------------------------
// Drawn input. Values are raw request text: drawn strings percent-encoded (lone surrogates as their
// invalid UTF-8 bytes), plus text sent as is that does not decode or names a prototype member.

/** Echoed unescaped anywhere, it would be markup. */
const MARK = '"><x-fuzz>';
/** Substituted when sent: the live setup session, and the state of an SSO sign-in started just before. */
const SESSION = '{{session}}';
const STATE = '{{state}}';

const RAW_HOSTILE = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%AF',
  '%C0%80',
  '%E0%80%AF',
  '%FF%FE',
  '%F4%90%80%80',
  '%E2%82',
  '%',
  '%zz',
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2Fpackage.json',
  '%2F',
  '%5C',
  '%2F%2Fevil.example',
  ...PROTO_KEYS,
];

const latin1 = fc.string({ minLength: 1, maxLength: 40, unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) });
const base64url43 = fc.string({ minLength: 43, maxLength: 43, unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') });

/** A route's own value (from the operation's schema), or hostile text, huge text (past the 100-character path parameter and 16 KB header limits), unicode. */
function drawn(own: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: own.map(encodeLoose) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_HOSTILE) },
    { weight: 2, arbitrary: hostileString.filter((s) => s.length < 12_000).map(encodeLoose) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30, unit: 'grapheme' }).map(encodeLoose) },
    { weight: 1, arbitrary: fc.constantFrom(101, 201, 4_001, 12_000, 20_000).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.constant(encodeLoose(MARK)) },
  );
}

/** A string field of an operation's input schema (zod -> JSON Schema -> values), as the other fuzz files draw bodies. */
function schemaField(schema: z.ZodType, field: string, ctx: GenContext): fc.Arbitrary<string> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, any> };
  return arbFromSchema(json.properties[field], ctx).map((v) => (typeof v === 'string' ? v : ''));
}

/** `next` values: same-origin paths, and every way of pointing elsewhere the rule has to refuse. */
const nextPaths: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '/',
    '/inbox/42',
    '/settings/notifications?tab=1#x',
    '/€/ü',
    '//evil.example',
    '/\\evil.example',
    '/%2F%2Fevil.example',
    '///evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '\t/x',
    '/x\r\nSet-Cookie: a=b',
    '/\u0000',
    ' /x',
    '/x\u2028',
    `/${'a'.repeat(1999)}`,
    `/${'a'.repeat(2000)}`,
  ),
  fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`),
);

function queryArb(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const own = Object.keys(params);
  const entries: Array<fc.WeightedArbitrary<string>> = [
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...PROTO_KEYS, '__proto__[next]', 'next[__proto__]', 'next[]', 'constructor[prototype][x]'),
          fc.constantFrom('1', '', '/x', '%00'),
        )
        .map(([k, v]) => `${encodeLoose(k)}=${v}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '&&',
        '=',
        'next',
        'next=',
        'next=/a&next=//evil.example',
        '%00=1',
        'a=%ED%A0%80',
        'a=%zz',
        'state=a&state=b',
        'code=&code=x',
        // Keys the service refuses in any query string (a token there is a leak).
        'token=fdl_x',
        'access_token=x',
        'api_key=1',
      ),
    },
    // Repeated keys, up to a few hundred.
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...own, 'x'), fc.integer({ min: 2, max: 300 }))
        .map(([k, n]) => Array.from({ length: n }, (_, i) => `${k}=${i}`).join('&')),
    },
  ];
  if (own.length > 0) entries.push({ weight: 6, arbitrary: fc.constantFrom(...own).chain((k) => params[k]!.map((v) => `${k}=${v}`)) });
  return fc.array(fc.oneof(...entries), { maxLength: 4 }).map((parts) => parts.join('&'));
}

interface Body {
  contentType: string | undefined;
  bytes: Buffer | undefined;
  chunked: boolean;
}

/** A form body for `field`: urlencoded pairs, sizes around the 8 KB form limit, invalid UTF-8, noise, none; any media type. */
function formArb(field: string, value: fc.Arbitrary<string>): fc.Arbitrary<Body> {
  const pairs = fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: value.map((v) => `${field}=${v}`) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), value).map(([k, v]) => `${k}=${v}`) },
        { weight: 1, arbitrary: fc.constantFrom('&', '=', field, `${field}=`, `${field}=a&${field}=b`, '%00=%00', `${field}=%ED%A0%80`, `${field}+=x`) },
      ),
      { maxLength: 4 },
    )
    .map((ps) => Buffer.from(ps.join('&'), 'latin1'));
  const bytes = fc.oneof(
    { weight: 6, arbitrary: pairs },
    // The form limit is 8 KB (auth-routes.ts): at it, one byte over, far over.
    { weight: 1, arbitrary: fc.constantFrom(8 * 1024, 8 * 1024 + 1, 20_000).map((n) => Buffer.from(`${field}=${'x'.repeat(n - field.length - 1)}`)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom([0xff, 0xfe], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x00], [0xe2, 0x82], [0x80])
        .map((b) => Buffer.concat([Buffer.from(`${field}=`), Buffer.from(b), Buffer.from('&x=1')])),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'application/x-www-form-urlencoded; charset=utf-8',
        'application/x-www-form-urlencoded; charset=iso-8859-1',
        'Application/X-WWW-Form-Urlencoded',
        'text/plain',
        'application/json',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        'text/html',
        ';;',
        '\u00ff/\u00fe',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({ contentType, bytes, chunked: fc.nat(9).map((n) => n === 0) });
}

/** Cookie headers: the service's cookie names with junk, prototype names, duplicates, huge values, bytes that are not UTF-8, malformed lines, two header lines. */
function cookieArb(): fc.Arbitrary<string | string[] | undefined> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(names.session, names.csrf, names.oidc) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('__Host-fluxdesk_session', '__Secure-fluxdesk_session', 'FLUXDESK_SESSION', ' fluxdesk_session', '', ...PROTO_KEYS),
    },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' }).map(encodeLoose) },
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(SESSION, STATE) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('fds_', 'fdc_', 'fdl_', ''), base64url43).map(([p, s]) => p + s) },
    { weight: 2, arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%C0%AF', '%', '%E0%A4%A', '""', '"x', 'a=b', ' ', ...PROTO_KEYS) },
    { weight: 2, arbitrary: hostileString.filter((s) => s.length < 12_000).map(encodeLoose) },
    { weight: 1, arbitrary: latin1 },
    { weight: 1, arbitrary: fc.constantFrom(201, 4_001, 12_000, 20_000).map((n) => 'x'.repeat(n)) },
  );
  const jar = fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 }).map((ps) => ps.map(([k, v]) => `${k}=${v}`).join('; '));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: jar },
    { weight: 1, arbitrary: fc.constantFrom('=', ';;;', '=;=x', names.session, ' ; ', 'a=b;;c', `${names.session}="x`, `${names.session}=%`) },
    { weight: 1, arbitrary: fc.tuple(jar, jar).map(([a, b]) => [a, b]) },
  );
}

interface HeaderDraw {
  origin?: string;
  host?: string;
  xff?: string;
  userAgent?: string;
}

/** Origin, Host, X-Forwarded-For and User-Agent: mostly plausible, sometimes junk, huge or not UTF-8. */
function headersArb(): fc.Arbitrary<HeaderDraw> {
  const port = new URL(base).port;
  return fc.record(
    {
      origin: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.constant(base) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'null',
            'http://evil.example',
            `${base}/`,
            base.toUpperCase(),
            `${base}.evil.example`,
            'http://127.0.0.1',
            `http://localhost:${port}`,
            '',
            'file://',
            'x'.repeat(5_000),
          ),
        },
        { weight: 1, arbitrary: latin1 },
      ),
      host: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('evil.example', `evil.example:${port}`, '127.0.0.1:1', '[::1', '@', 'localhost:99999', 'a'.repeat(5_000)) },
        { weight: 1, arbitrary: latin1 },
      ),
      xff: fc.oneof(
        { weight: 8, arbitrary: fc.ipV4() },
        { weight: 1, arbitrary: fc.ipV6() },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'junk',
            '',
            ',,,',
            '1.2.3.4, junk',
            'unknown',
            '::ffff:10.0.0.1',
            '999.999.999.999',
            '1.2.3.4:80',
            '[::1]:80',
            '127.0.0.1, 127.0.0.1',
            'x'.repeat(8_000),
          ),
        },
        { weight: 1, arbitrary: latin1 },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      userAgent: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.constant('Mozilla/5.0 (fuzz)') },
        { weight: 1, arbitrary: fc.constantFrom(301, 2_001, 12_000, 20_000).map((n) => 'u'.repeat(n)) },
        { weight: 1, arbitrary: latin1 },
        { weight: 1, arbitrary: hostileString.filter((s) => s.length < 12_000).map(encodeLoose) },
      ),
    },
    { requiredKeys: [] },
  );
}

function headerFields(d: HeaderDraw, cookie: string | string[] | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (d.origin !== undefined) out.origin = d.origin;
  if (d.host !== undefined) out.host = d.host;
  if (d.xff !== undefined) out['x-forwarded-for'] = d.xff;
  if (d.userAgent !== undefined) out['user-agent'] = d.userAgent;
  if (cookie !== undefined) out.cookie = cookie;
  return out;
}

/**
 * rawRequest, except for one answer Node's client cannot read: Fastify refuses headers over 16 KB
 * with a 431 that has a body even for HEAD, and the client takes that body for the next response.
 */
async function send(method: string, url: string, headers: Record<string, string | string[]>, body: Buffer | undefined, chunked = false): Promise<Answer> {
  try {
    return await rawRequest(base, method, url, headers, body, chunked);
  } catch (e) {
    if (method !== 'HEAD' || (e as NodeJS.ErrnoException).code !== 'HPE_INVALID_CONSTANT') throw e;
    return { status: 0, headers: new Headers(), text: 'a 431 with a body, to HEAD', body: undefined };
  }
}

let addresses = 0;
/** A client address of its own (10.x), for the requests a property makes besides the drawn one. */
const freshAddress = () => `10.${(++addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;

/** Starts an SSO sign-in as a browser would: its state, or a placeholder when the start was refused. */
async function startedState(): Promise<string> {
  const a = await send('GET', '/auth/oidc/start', { 'x-forwarded-for': freshAddress() }, undefined);
  const location = a.headers.get('location');
  return (a.status === 302 && location ? new URL(location).searchParams.get('state') : null) ?? 'no-sign-in-started';
}

const describeInput = (method: string, url: string, headers: Record<string, string | string[]>, body: Body | undefined) =>
  `${method} ${short(url, 300)} ${short(JSON.stringify(headers), 300)}${body?.bytes ? ` [${body.contentType ?? 'no content-type'}${body.chunked ? ', chunked' : ''}] ${short(body.bytes.toString('latin1'), 300)}` : ''}`;

// ---------------------------------------------------------------------------------------------

it(
  'web routes: drawn paths, queries, forms, cookies and headers -> their page or a safe redirect, no 5xx, nothing stored',
  async () => {
    const from = stats.violations.length;
    const ctx: GenContext = { now: () => h.clock.now().getTime() };
    const next = drawn(fc.oneof(nextPaths, schemaField(BeginOidcLoginInput, 'next', ctx)));
    const query: Record<string, fc.Arbitrary<string>> = {
      next,
      state: fc.oneof({ weight: 2, arbitrary: fc.constant(STATE) }, { weight: 3, arbitrary: drawn(schemaField(TakeOidcLoginInput, 'state', ctx)) }),
      code: drawn(fc.oneof(base64url43, fc.string({ maxLength: 60 }))),
      error: drawn(fc.constantFrom('access_denied', 'login_required', 'server_error', '')),
      iss: drawn(fc.constantFrom(idp.issuer, 'http://evil.example')),
    };
    const form: Record<string, fc.Arbitrary<string>> = { next, csrf: drawn(schemaField(SignOutInput, 'csrf_token', ctx)) };
    let assets: string[];
    try {
      assets = readdirSync(path.join(defaultWebDir(), 'assets'));
    } catch {
      assets = ['index.js'];
    }
    const params: Record<string, fc.Arbitrary<string>> = {
      token: drawn(
        fc.oneof(
          schemaField(RedeemLoginLinkInput, 'token', ctx),
          base64url43.map((s) => `fdl_${s}`),
        ),
      ),
      notificationId: drawn(fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }))),
      slug: drawn(fc.constantFrom(...problemPages().map((p) => p.slug))),
      '*': fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...assets) },
        { weight: 2, arbitrary: drawn(fc.constantFrom(...assets)) },
        { weight: 1, arbitrary: fc.constantFrom('.hidden', '..%2F..%2Fpackage.json', '%2e%2e/%2e%2e/package.json', '../index.html', 'x/y', '') },
      ),
    };
    // Past the route: one more segment, an escape out of it, a byte that does not decode.
    const suffix = fc.oneof(
      { weight: 12, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: fc.constantFrom('/', '/x', '/..', '/%2e%2e', ';x', '%00', '%ED%A0%80', '.json', '/__proto__') },
    );
    const otherMethod = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
    let index = 0;
    for (const t of TARGETS) {
      const segments = t.pattern.split('/').map((s) => (s.startsWith(':') ? params[s.slice(1)]! : s === '*' ? params['*']! : fc.constant(s)));
      const callback = t.pattern === '/auth/oidc/callback';
      const input = fc.record({
        method: fc.oneof({ weight: 12, arbitrary: fc.constant<string>(t.method) }, { weight: 1, arbitrary: otherMethod }),
        path: fc.tuple(fc.tuple(...segments), suffix).map(([s, x]) => s.join('/') + x),
        query: queryArb(Object.fromEntries(t.query.map((k) => [k, query[k]!]))),
        body: formArb(t.form ?? 'next', form[t.form ?? 'next']!),
        // The callback mostly carries the state cookie of a sign-in started just before (or junk beside it).
        cookie: callback
          ? fc.oneof(
              { weight: 3, arbitrary: fc.constant(`${names.oidc}=${STATE}`) },
              { weight: 1, arbitrary: cookieArb().map((c) => [`${names.oidc}=${STATE}`, ...(c === undefined ? [] : [c].flat())]) },
              { weight: 2, arbitrary: cookieArb() },
            )
          : cookieArb(),
        headers: headersArb(),
      });
      const runs = t.family === 'auth' && t.pattern !== '/auth/auth.css' ? RUNS * 2 : RUNS;
      await check(
        stats,
        index++,
        input,
        async (v) => {
          tick();
          let url = v.query ? `${v.path}?${v.query}` : v.path;
          let cookie = v.cookie;
          if (`${url} ${cookie}`.includes(STATE)) {
            const state = await startedState();
            url = url.replaceAll(STATE, state);
            cookie = typeof cookie === 'string' ? cookie.replaceAll(STATE, state) : cookie?.map((c) => c.replaceAll(STATE, state));
          }
          cookie = typeof cookie === 'string' ? cookie.replaceAll(SESSION, session) : cookie?.map((c) => c.replaceAll(SESSION, session));
          const headers = headerFields(v.headers, cookie);
          const withBody = v.method !== 'GET' && v.method !== 'HEAD' && v.body.bytes !== undefined;
          if (withBody && v.body.contentType !== undefined) headers['content-type'] = v.body.contentType;
          const before = await rows.snapshot();
          const a = await send(v.method, url, headers, withBody ? v.body.bytes : undefined, v.body.chunked);
          const route = a.status === 0 ? t : webRoute(v.method, url);
          const reasons = answerReasons(route, v.method, a);
          const started = route?.pattern === '/auth/oidc/start' && a.status === 302;
          const changed = rows.diff(before, await rows.snapshot(), started ? { oidc_logins: 1 } : {});
          if (changed.length > 0) reasons.push(`stored: ${changed.join(', ')}`);
          if (started) reasons.push(...(await startReasons(a)));
          record(
            stats,
            'web',
            `${t.method} ${t.pattern}`,
            String(a.status),
            reasons,
            () => `${describeInput(v.method, url, headers, withBody ? v.body : undefined)} => ${a.status} ${short(a.text, 200)}`,
            a.status >= 500 && !deliberate5xx(route, a),
          );
        },
        runs,
      );
    }
    await expectHealthy(h);
    expectNoViolations(stats, from);
  },
  60_000 + RUNS * 6_000,
);

/** A started SSO sign-in: the state cookie is the one in the redirect, and the kept `next` is a same-origin path. */
async function startReasons(a: Answer): Promise<string[]> {
  const state = new URL(a.headers.get('location')!).searchParams.get('state') ?? '';
  const r: string[] = [];
  if (!a.headers.getSetCookie().some((c) => c.startsWith(`${names.oidc}=${state};`))) r.push('the state cookie is not the redirect state');
  const kept = await db.query('select next_path from oidc_logins where state_hash = $1', [secretHash(state)]);
  if (kept.rows.length !== 1) r.push(`${kept.rows.length} oidc_logins rows for the state`);
  else if (!sameOriginPath(kept.rows[0].next_path)) r.push(`kept next ${short(kept.rows[0].next_path, 200)}`);
  return r;
}

it(
  'login links: a link that looks valid but is not never signs in; the real one signs in once, to a same-origin path',
  async () => {
    const from = stats.violations.length;
    const user = await newUser(h);
    // Near misses of the real token (one character changed, one less or more, another prefix, case)
    // and fresh tokens of the right shape.
    const variant = fc.oneof(
      { weight: 2, arbitrary: base64url43.map((s) => ({ kind: 'fresh', make: (_real: string) => `fdl_${s}` })) },
      {
        weight: 3,
        arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...'ABCabc019-_')).map(([i, c]) => ({
          kind: 'one character changed',
          make: (real: string) => {
            const at = 4 + (i % (real.length - 4));
            return real.slice(0, at) + (real[at] === c ? (c === 'A' ? 'B' : 'A') : c) + real.slice(at + 1);
          },
        })),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          { kind: 'one less', make: (real: string) => real.slice(0, -1) },
          { kind: 'one more', make: (real: string) => `${real}A` },
          { kind: 'no prefix', make: (real: string) => real.slice(4) },
          { kind: 'session prefix', make: (real: string) => `fds_${real.slice(4)}` },
          { kind: 'upper case', make: (real: string) => (real.toUpperCase() === real ? `${real}x` : real.toUpperCase()) },
          { kind: 'NUL after', make: (real: string) => `${real}%00` },
        ),
      },
    );
    const input = fc.record({
      variant,
      next: drawn(nextPaths),
      cookie: cookieArb(),
      sameOrigin: fc.boolean(),
      userAgent: fc.option(fc.constantFrom('Mozilla/5.0 (fuzz)', 'u'.repeat(2_001), '\u00ff\u00fe'), { nil: undefined }),
    });
    await check(
      stats,
      100,
      input,
      async (v) => {
        tick();
        const real = new URL(await loginLink(user)).pathname.split('/').pop()!;
        const token = v.variant.make(real);
        // The real session never rides along: signing in again would end it (rotation).
        const cookie = typeof v.cookie === 'string' ? v.cookie.replaceAll(SESSION, 'fds_x') : v.cookie?.map((c) => c.replaceAll(SESSION, 'fds_x'));
        const headers = (extra: Record<string, string>): Record<string, string | string[]> => ({
          ...headerFields({ origin: v.sameOrigin ? base : undefined, xff: freshAddress(), userAgent: v.userAgent }, cookie),
          ...extra,
        });
        const form = Buffer.from(`next=${v.next}`);
        const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
        const shown = () => `${v.variant.kind}: ${token} (real ${real}) next=${short(v.next, 200)} ${short(JSON.stringify(cookie ?? ''), 200)}`;

        // The near miss: refused with the "not valid" page (or the 429 page), nothing signed in or used.
        let before = await rows.snapshot();
        const miss = await send('POST', `/auth/link/${token}`, headers(formHeaders), form);
        const reasons = answerReasons(LINK_POST, 'POST', miss);
        if (![400, 413, 429, 431, 0].includes(miss.status)) reasons.push(`a link that is not valid answered ${miss.status}`);
        let changed = rows.diff(before, await rows.snapshot());
        if (changed.length > 0) reasons.push(`stored: ${changed.join(', ')}`);
        record(stats, 'web (login link)', `POST /auth/link near miss`, String(miss.status), reasons, shown, miss.status >= 500);

        // A mail scanner's GET of the real link uses nothing; the POST signs in once, landing on a same-origin path.
        before = await rows.snapshot();
        const page = await send('GET', `/auth/link/${real}?next=${v.next}`, headers({}), undefined);
        const pageReasonsFound = answerReasons(LINK_PAGE, 'GET', page);
        if (![200, 431, 0].includes(page.status)) pageReasonsFound.push(`the link page answered ${page.status}`);
        const redeemed = await send('POST', `/auth/link/${real}`, headers(formHeaders), form);
        const redeemReasons: string[] = [];
        if (redeemed.status === 303) {
          const location = redeemed.headers.get('location') ?? '';
          if (!sameOriginPath(location)) redeemReasons.push(`signed in, then sent to ${short(location, 200)}`);
          if (sessionCookieOf(redeemed) === undefined) redeemReasons.push('signed in without a session cookie');
          const after = await rows.snapshot();
          changed = rows.diff(before, after, { web_sessions: 1, login_links_used: 1, sign_in_audit: 1 });
          for (const k of ['web_sessions', 'login_links_used', 'sign_in_audit'])
            if (after[k] !== before[k]! + 1) redeemReasons.push(`${k} ${before[k]} -> ${after[k]}`);
          const again = await send('POST', `/auth/link/${real}`, headers(formHeaders), form);
          if (again.status !== 400 && again.status !== 429) redeemReasons.push(`a used link answered ${again.status} the second time`);
          if (sessionCookieOf(again) !== undefined) redeemReasons.push('a used link signed in again');
        } else {
          // The real link is refused only by a per-address window, a form over 8 KB or headers over Node's 16 KB.
          redeemReasons.push(...answerReasons(LINK_POST, 'POST', redeemed));
          if (![413, 429, 431, 0].includes(redeemed.status))
            redeemReasons.push(`the real link answered ${redeemed.status}: ${/<title>([^<]*)</.exec(redeemed.text)?.[1] ?? ''}`);
          changed = rows.diff(before, await rows.snapshot());
        }
        if (changed.length > 0) redeemReasons.push(`stored: ${changed.join(', ')}`);
        record(
          stats,
          'web (login link)',
          'GET, then POST, the real link',
          `${page.status} ${redeemed.status}`,
          [...pageReasonsFound, ...redeemReasons],
          () => `${shown()} => ${redeemed.status} ${redeemed.headers.get('location') ?? short(redeemed.text, 200)}`,
          page.status >= 500 || redeemed.status >= 500,
        );
      },
      RUNS * 2,
    );
    expectNoViolations(stats, from);
  },
  60_000 + RUNS * 4_000,
);

/** Through the provider's login (and consent) forms to the URL it sends the browser back to. */
async function throughProvider(authorizationUrl: string, login: string): Promise<string> {
  return (await followProviderForms(new URL(authorizationUrl), login, new CookieJar(), (u) => u.origin === base)).href;
}

it(
  'SSO: a completed sign-in with drawn next, cookies and headers signs its user in, once, to a same-origin path',
  async () => {
    const from = stats.violations.length;
    const ctx: GenContext = { now: () => h.clock.now().getTime() };
    const input = fc.record({
      next: drawn(fc.oneof(nextPaths, schemaField(BeginOidcLoginInput, 'next', ctx))),
      cookie: cookieArb(),
      // Headers a real browser could send along (no Host or Origin junk: the browser sets those).
      headers: headersArb().map((d) => ({ ...d, origin: undefined, host: undefined })),
    });
    await check(
      stats,
      200,
      input,
      async (v) => {
        tick();
        // Not the setup session: a sign-in ends the session the browser held (rotation).
        const cookie = typeof v.cookie === 'string' ? v.cookie.replaceAll(SESSION, 'fds_x') : v.cookie?.map((c) => c.replaceAll(SESSION, 'fds_x'));
        const before = await rows.snapshot();
        const startUrl = `/auth/oidc/start?next=${v.next}`;
        const start = await send('GET', startUrl, headerFields(v.headers, cookie), undefined);
        const shown = () => `GET ${short(startUrl, 300)} ${short(JSON.stringify(headerFields(v.headers, cookie)), 400)}`;
        if (start.status !== 302) {
          // Refused before the provider: judged like any start (a page, nothing stored).
          const reasons = answerReasons(OIDC_START, 'GET', start);
          const changed = rows.diff(before, await rows.snapshot());
          if (changed.length > 0) reasons.push(`stored: ${changed.join(', ')}`);
          record(stats, 'web (sso sign-in)', 'start', String(start.status), reasons, () => `${shown()} => ${short(start.text, 200)}`, start.status >= 500);
          return;
        }
        const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
        const callbackUrl = new URL(await throughProvider(start.headers.get('location')!, 'fuzz-sso'));
        const stateCookie = `${names.oidc}=${state}`;
        // First: a browser holds one cookie of a name and path, and the parser keeps the first of a name.
        const callbackCookie = cookie === undefined ? stateCookie : typeof cookie === 'string' ? `${stateCookie}; ${cookie}` : [stateCookie, ...cookie];
        const callbackHeaders = headerFields(v.headers, callbackCookie);
        const a = await send('GET', callbackUrl.pathname + callbackUrl.search, callbackHeaders, undefined);
        const reasons: string[] = [];
        if (a.status === 303) {
          const location = a.headers.get('location') ?? '';
          if (!sameOriginPath(location)) reasons.push(`signed in, then sent to ${short(location, 200)}`);
          if (sessionCookieOf(a) === undefined) reasons.push('signed in without a session cookie');
          const after = await rows.snapshot();
          for (const k of ['web_sessions', 'sign_in_audit']) if (after[k] !== before[k]! + 1) reasons.push(`${k} ${before[k]} -> ${after[k]}`);
          const changed = rows.diff(before, after, { oidc_logins: 1, web_sessions: 1, sign_in_audit: 1, oidc_identities: 1 });
          if (changed.length > 0) reasons.push(`stored: ${changed.join(', ')}`);
        } else {
          // An active user whose provider vouches for the email is signed in whatever else the browser sent;
          // only a per-address window or Node's header limit may stop it.
          reasons.push(...answerReasons(OIDC_CALLBACK, 'GET', a));
          if (a.status !== 429 && a.status !== 431 && a.status !== 0)
            reasons.push(
              `the sign-in of an active user was refused: ${a.status} ${/<h1>([^<]*)</.exec(a.text)?.[1] ?? ''} ${/<p>([^<]*)</.exec(a.text)?.[1] ?? ''}`,
            );
        }
        record(
          stats,
          'web (sso sign-in)',
          'start, provider, callback',
          String(a.status),
          reasons,
          () => `${shown()}; callback ${short(JSON.stringify(callbackHeaders), 400)} => ${a.status} ${a.headers.get('location') ?? short(a.text, 200)}`,
          a.status >= 500,
        );
      },
      RUNS,
    );
    await expectHealthy(h);
    expectNoViolations(stats, from);
  },
  60_000 + RUNS * 4_000,
);
