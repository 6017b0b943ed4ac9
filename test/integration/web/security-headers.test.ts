// Security headers of the HTTP/1.1 listener and the CSRF cookie's name: Strict-Transport-Security
// on every answer (REST, probes, 404s, errors raised before routing, Connect, sign-in pages, the
// API viewer) when PUBLIC_BASE_URL is https and on none under http; the API viewer's own
// Content-Security-Policy and page headers; `__Host-fluxdesk_csrf` under https. The harness listens
// on plain http on 127.0.0.1 either way: these are checks of what the service sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ViewerService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { event, newPersonalToken, newUser, operator, startHarness, type Harness } from '../../helpers/harness.js';
import { cookiesOf } from '../../helpers/cookies.js';

const HTTPS_BASE = 'https://fluxdesk.example.test';

/** Redeems a one-time login link (what the link page's form does); the answer carries the session cookies. */
async function redeemLink(h: Harness, origin: string): Promise<Response> {
  const user = await newUser(h);
  const { url } = await operator<{ url: string }>(h, 'web.create_login_link', { email: user.email });
  expect(url.startsWith(`${origin}/auth/link/`), url).toBe(true);
  const res = await fetch(`${h.baseUrl}${new URL(url).pathname}`, { method: 'POST', redirect: 'manual', headers: { origin } });
  expect(res.status).toBe(303);
  return res;
}

const connectCall = (h: Harness, path: string, headers: Record<string, string> = {}) =>
  fetch(`${h.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

/** One answer of each kind the listener gives, with its status (so a wrong route cannot pass unnoticed). */
async function answers(h: Harness, origin: string): Promise<[string, number, Response][]> {
  const t = await newPersonalToken(h);
  const signIn = await redeemLink(h, origin);
  const cookies = cookiesOf(signIn);
  const session = cookies.find((c) => c.name.endsWith('fluxdesk_session'))!;
  const csrf = cookies.find((c) => c.name.endsWith('fluxdesk_csrf'))!;
  const list = `/${AccountService.typeName}/ListPersonalTokens`;
  const get = (path: string, init?: RequestInit) => fetch(`${h.baseUrl}${path}`, { redirect: 'manual', ...init });
  return [
    [
      'REST publish',
      202,
      await get('/api/v1/events', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(event(h)),
      }),
    ],
    ['REST problem (no token)', 401, await get('/api/v1/event-types')],
    ['health', 200, await get('/api/v1/health')],
    ['404', 404, await get('/no/such/route')],
    ['token in the query (refused in the root hook)', 400, await get('/api/v1/health?access_token=abc')],
    ['undecodable path (refused before routing)', 400, await get('/api/v1/catalog/items/%ED%A0%80')],
    ['Connect call', 200, await connectCall(h, list, { cookie: `${session.name}=${session.value}`, 'x-csrf-token': csrf.value })],
    ['Connect refusal', 401, await connectCall(h, `/${ViewerService.typeName}/GetViewer`)],
    ['sign-in page', 200, await get('/auth/login')],
    ['sign-in redirect', 303, signIn],
    ['API docs page', 200, await get('/api/v1/docs')],
    ['API docs asset', 200, await get('/api/v1/docs/assets/init.js')],
  ];
}

const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
];

describe('under an https PUBLIC_BASE_URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { PUBLIC_BASE_URL: HTTPS_BASE } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('every answer of the HTTP/1.1 listener carries Strict-Transport-Security: max-age=31536000 (a year, no includeSubDomains)', async () => {
    for (const [what, status, res] of await answers(h, HTTPS_BASE)) {
      expect(res.status, what).toBe(status);
      expect(res.headers.get('strict-transport-security'), what).toBe('max-age=31536000');
    }
  });

  it('the CSRF cookie is __Host-fluxdesk_csrf: Secure, Path=/, no Domain; the plain name is not set', async () => {
    const cookies = cookiesOf(await redeemLink(h, HTTPS_BASE));
    expect(cookies.map((c) => c.name).sort()).toEqual(['__Host-fluxdesk_csrf', '__Host-fluxdesk_session']);
    const csrf = cookies.find((c) => c.name === '__Host-fluxdesk_csrf')!;
    expect(csrf.value).toMatch(/^fdc_/);
    expect(csrf.attrs).toMatchObject({ secure: true, path: '/', samesite: 'Lax' });
    expect(csrf.attrs.domain).toBeUndefined();
    // Readable by the app, which sends it back as x-csrf-token.
    expect(csrf.attrs.httponly).toBeUndefined();
  });
});

describe('under an http PUBLIC_BASE_URL (the default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('no answer carries Strict-Transport-Security', async () => {
    for (const [what, status, res] of await answers(h, h.baseUrl)) {
      expect(res.status, what).toBe(status);
      expect(res.headers.get('strict-transport-security'), what).toBeNull();
    }
  });

  it('the CSRF cookie keeps its plain name fluxdesk_csrf, not Secure', async () => {
    const cookies = cookiesOf(await redeemLink(h, h.baseUrl));
    expect(cookies.map((c) => c.name).sort()).toEqual(['fluxdesk_csrf', 'fluxdesk_session']);
    expect(cookies.find((c) => c.name === 'fluxdesk_csrf')!.attrs.secure).toBeUndefined();
  });

  it('the API docs page has its own CSP (frame-ancestors none, no unsafe-inline) and the page headers; its assets carry nosniff', async () => {
    const res = await fetch(`${h.baseUrl}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp.split(/;\s*/)).toEqual(DOCS_CSP);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');

    for (const [file, type] of [
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['init.js', 'text/javascript; charset=utf-8'],
    ]) {
      const asset = await fetch(`${h.baseUrl}/api/v1/docs/assets/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.headers.get('content-type'), file).toBe(type);
      expect(asset.headers.get('x-content-type-options'), file).toBe('nosniff');
      // A page policy belongs on documents; scripts and stylesheets need none.
      expect(asset.headers.get('content-security-policy'), file).toBeNull();
    }
    // Control: the JSON document is not a page and gets no page policy.
    expect((await fetch(`${h.baseUrl}/api/v1/openapi.json`)).headers.get('content-security-policy')).toBeNull();
  });
});
