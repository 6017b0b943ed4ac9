// The web app's HTTP face (src/transports/web/web-app.ts) over HTTP, no browser: the built app
// (dist/web, built here when missing or stale) served as index.html on every app route with the
// strict CSP and the security headers, hashed assets cached for a year, the service worker never
// cached, /errors/<slug> for every problem type the service emits (h1 = the problem's title, the
// same the problem bodies carry), an unknown slug a 404 page, no API route shadowed, and a 503
// page instead of a crash when there is no build.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, ERROR_KINDS, errorTypeSlug } from '../../../src/domain/errors.js';
import { problemPages, problemTitle, SLUG_TITLES } from '../../../src/transports/http/status.js';
import { registerWebApp, WEB_APP_ROUTES } from '../../../src/transports/web/web-app.js';
import { CONTENT_SECURITY_POLICY } from '../../../src/transports/http/page-security.js';
import { type Harness, startHarness } from '../../helpers/harness.js';

const ROOT = process.cwd();
const EXPECTED_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

let h: Harness;
beforeAll(async () => {
  // The test serves the real build: `node scripts/build.mjs --web-only --if-stale` (a no-op when current).
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--web-only', '--if-stale', '--no-check'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  h = await startHarness();
}, 150_000);
afterAll(async () => {
  await h?.close();
});

const get = (p: string, init?: RequestInit) => fetch(`${h.baseUrl}${p}`, { redirect: 'manual', ...init });
/** GET with the path sent exactly as written (fetch and inject resolve dot segments first). */
function rawGet(p: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${h.baseUrl}/`, { method: 'GET', path: p }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const decodeEntities = (s: string) =>
  s
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function expectHtmlHeaders(res: Response, where: string) {
  expect(res.headers.get('content-type'), where).toBe('text/html; charset=utf-8');
  expect(res.headers.get('content-security-policy'), where).toBe(EXPECTED_CSP);
  expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), where).toBe('same-origin');
  expect(res.headers.get('x-frame-options'), where).toBe('DENY');
  expect(res.headers.get('cache-control'), where).toBe('no-cache');
}

describe('the single-page app', () => {
  it('answers index.html on every app route, no-cache, with the strict CSP and security headers', async () => {
    expect(CONTENT_SECURITY_POLICY).toBe(EXPECTED_CSP);
    const index = readFileSync(path.join(ROOT, 'dist/web/index.html'), 'utf8');
    const paths = WEB_APP_ROUTES.map((r) => r.replace(':notificationId', '0b6f1c7e-3d2a-4c1b-9f00-6a5e4d3c2b1a'));
    expect(paths).toEqual([
      '/',
      '/inbox/0b6f1c7e-3d2a-4c1b-9f00-6a5e4d3c2b1a',
      '/settings/integrations',
      '/settings/notifications',
      '/catalog',
      '/admin/requests',
      '/admin/moderation',
      '/admin/tokens',
    ]);
    for (const p of [...paths, '/settings/integrations/', '/inbox/anything-at-all']) {
      const res = await get(p);
      expect(res.status, p).toBe(200);
      expectHtmlHeaders(res, p);
      expect(await res.text(), p).toBe(index);
    }
    // No inline script or style anywhere in the page (the CSP would block them).
    expect(index).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|\sstyle=/);
    expect(index).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/);
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
  });

  it('serves the hashed assets index.html loads with a year of immutable caching; unknown or escaping names are 404', async () => {
    const index = await (await get('/')).text();
    const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    let gzipJs = 0;
    for (const a of assets) {
      expect(a).toMatch(/^\/assets\/[\w.-]+-[\w-]{8}\.(js|css)$/);
      const res = await get(a);
      expect(res.status, a).toBe(200);
      expect(res.headers.get('cache-control'), a).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options'), a).toBe('nosniff');
      expect(res.headers.get('content-type'), a).toMatch(a.endsWith('.js') ? /^(text|application)\/javascript/ : /^text\/css/);
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.equals(readFileSync(path.join(ROOT, 'dist/web', a)))).toBe(true);
      if (a.endsWith('.js')) gzipJs += (await import('node:zlib')).gzipSync(body).length;
    }
    // The inbox route's JavaScript budget: at most 150 KB gzipped.
    expect(gzipJs).toBeLessThanOrEqual(150 * 1024);
    // A conditional request is answered 304 (ETag from @fastify/static).
    const first = await get(assets[0]!);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    // (inject: fetch adds Cache-Control: no-cache to a conditional request, which forces a full answer)
    expect((await h.svc.app.inject({ method: 'GET', url: assets[0]!, headers: { 'if-none-match': etag! } })).statusCode).toBe(304);

    for (const bad of [
      '/assets/nope-12345678.js',
      '/assets/..%2Findex.html',
      '/assets/%2e%2e/sw.js',
      '/assets/../index.html',
      '/assets/.build-stamp',
      '/assets/',
      '/assets/sub/dir.js',
    ]) {
      const res = await rawGet(bad);
      expect(res.status, bad).toBe(404);
      expect(String(res.headers['cache-control'] ?? ''), bad).not.toContain('immutable');
    }
  });

  it('serves the service worker at /sw.js, never cached, with push and notificationclick handlers', async () => {
    const res = await get('/sw.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    const text = await res.text();
    expect(text).toContain("addEventListener('push'");
    expect(text).toContain("addEventListener('notificationclick'");
  });
  it('answers /favicon.ico 204 (no icon, no 404 in the browser console)', async () => {
    const res = await get('/favicon.ico');
    expect(res.status).toBe(204);
  });
});

describe('/errors/<slug>', () => {
  it('has a page for every problem type the service emits: h1 = the problem title, what it means, what to do', async () => {
    const pages = problemPages();
    const slugs = pages.map((p) => p.slug);
    // Every per-kind slug and every slug with its own title is covered.
    for (const kind of ERROR_KINDS) expect(slugs).toContain(errorTypeSlug(new DomainError(kind, 'x')));
    for (const slug of Object.keys(SLUG_TITLES)) expect(slugs).toContain(slug);
    expect(slugs).toContain('idempotency-conflict');
    expect(slugs).toContain('username-contains-at');
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const p of pages) {
      const res = await get(`/errors/${p.slug}`);
      expect(res.status, p.slug).toBe(200);
      expectHtmlHeaders(res, p.slug);
      const html = await res.text();
      expect(decodeEntities(h1(html) ?? ''), p.slug).toBe(p.title);
      expect(html).toContain('<h2>What it means</h2>');
      expect(html).toContain('<h2>What to do</h2>');
      expect(html).not.toMatch(/<script|\sstyle=/);
    }
    // Titles are the ones the problem bodies carry.
    expect(pages.find((p) => p.slug === 'user-not-found')!.title).toBe(SLUG_TITLES['user-not-found']);
    expect(pages.find((p) => p.slug === 'not-found')!.title).toBe(problemTitle(new DomainError('not_found', 'x'), 'not-found'));
  });

  it('resolves the type URI of a real problem response to its page', async () => {
    const res = await get('/api/v1/no-such-route');
    expect(res.status).toBe(404);
    const problem = (await res.json()) as { type: string; title: string };
    const slug = problem.type.slice(problem.type.lastIndexOf('/') + 1);
    const page = await get(`/errors/${slug}`);
    expect(page.status).toBe(200);
    expect(decodeEntities(h1(await page.text()) ?? '')).toBe(problem.title);
  });

  it('answers an unknown slug with a 404 HTML page (the slug escaped), and lists the types at /errors', async () => {
    const res = await get('/errors/no-such-problem');
    expect(res.status).toBe(404);
    expectHtmlHeaders(res, 'unknown');
    expect(h1(await res.text())).toBe('Unknown problem type');
    const hostile = await get('/errors/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(hostile.status).toBe(404);
    const text = await hostile.text();
    expect(text).not.toContain('<script>');
    expect(text).toContain('&lt;script&gt;');
    const list = await get('/errors');
    expect(list.status).toBe(200);
    const html = await list.text();
    for (const p of problemPages()) expect(html).toContain(`href="/errors/${p.slug}"`);
  });
});

describe('no route is shadowed', () => {
  it('API, health, metrics, the OpenAPI document and Connect paths still answer as themselves', async () => {
    const nope = await get('/api/v1/nope');
    expect(nope.status).toBe(404);
    expect(nope.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await get('/api/v1/health')).status).toBe(200);
    const doc = await get('/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    const paths = Object.keys(((await doc.json()) as { paths: Record<string, unknown> }).paths);
    // The web routes are not API routes: not in the document.
    expect(paths.filter((p) => p === '/' || p.startsWith('/errors') || p.startsWith('/assets') || p.startsWith('/inbox') || p === '/sw.js')).toEqual([]);
    const docs = await get('/api/v1/docs');
    expect(docs.status).toBe(200);
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    // A Connect call without credentials: the Connect error, not the app's HTML.
    const rpc = await get('/fluxdesk.inbox.v1.ViewerService/GetViewer', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(rpc.status).toBe(401);
    expect(rpc.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await rpc.json()) as { code: string }).code).toBe('unauthenticated');
    // Methods other than GET/HEAD on an app route are not answered with the page.
    const post = await get('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('without a build', () => {
  let app: FastifyInstance;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-noweb-'));
    app = Fastify();
    await registerWebApp(app, {
      deps: undefined as never,
      publicBaseUrl: 'http://x.test',
      errorsBaseUrl: 'http://x.test/errors',
      webDir: path.join(dir, 'missing'),
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the app routes 503 with a page saying to run `npm run build`; error pages still work', async () => {
    for (const url of ['/', '/inbox/x', '/settings/integrations']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(EXPECTED_CSP);
      expect(res.body).toContain('<code>npm run build</code>');
    }
    expect((await app.inject({ method: 'GET', url: '/assets/index-12345678.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/sw.js' })).statusCode).toBe(404);
    const page = await app.inject({ method: 'GET', url: '/errors/forbidden' });
    expect(page.statusCode).toBe(200);
    expect(h1(page.body)).toBe('Forbidden');
  });
});

describe('scripts/build.mjs --web-only (`npm start` and the browser tests build the app this way)', () => {
  // A scratch project with this repository's web/, gen/, build scripts and node_modules: the real
  // dist/ is left alone.
  let dir: string;
  const build = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/build.mjs', '--web-only', ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-webbuild-'));
    for (const d of ['web', 'gen', 'scripts']) cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
    // The modules of src/ the web app imports: the areas' limits files (src/domain/**/*.limits.ts).
    for (const f of readdirSync(path.join(ROOT, 'src/domain'), { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.limits.ts')) cpSync(path.join(ROOT, 'src/domain', f), path.join(dir, 'src/domain', f));
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'web-build-fixture', private: true, type: 'module' }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a missing dist/web, reuses a current one, rebuilds after a web/ or gen/ change, keeps the previous build when one fails', () => {
    let r = build('--if-stale', '--no-check');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('building the web app');
    expect(r.stderr).toMatch(/inbox route: [\d.]+ KB of JavaScript gzipped/);
    const index = readFileSync(path.join(dir, 'dist/web/index.html'), 'utf8');
    expect(existsSync(path.join(dir, 'dist/web/sw.js'))).toBe(true);
    for (const m of index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)) expect(existsSync(path.join(dir, 'dist/web', m[1]!)), m[1]).toBe(true);

    r = build('--if-stale', '--no-check');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');

    // An edit under web/ (content and mtime), then only a newer mtime under gen/.
    appendFileSync(path.join(dir, 'web/src/ui.tsx'), '\n// edited\n');
    r = build('--if-stale', '--no-check');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('dist/web is out of date');
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(dir, 'gen/fluxdesk/inbox/v1/inbox_pb.ts'), later, later);
    r = build('--if-stale', '--no-check');
    expect(r.stderr).toContain('dist/web is out of date');
    expect(build('--if-stale', '--no-check').stderr).toBe('');

    // A broken source: the build fails, the previous dist/web stays whole, no temporary directory is left.
    const before = readFileSync(path.join(dir, 'dist/web/index.html'), 'utf8');
    writeFileSync(path.join(dir, 'web/src/live.ts'), 'export const broken = ;\n');
    r = build('--if-stale', '--no-check');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('vite build failed; dist/web left as it was');
    expect(readFileSync(path.join(dir, 'dist/web/index.html'), 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((n) => n.startsWith('dist.'))).toEqual([]);
  }, 120_000);
});
