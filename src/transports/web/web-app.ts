// The built web app (dist/web, scripts/build.mjs), its service worker and the /errors/<slug> pages
// (what a problem `type` means, from the status table), each HTML answer with the strict CSP
// (html-pages.ts). Without a build (tests run from src/) the app routes answer 503 saying to run
// `npm run build`. None is an API route: each is declared with `schema: { hide: true }` (the
// @fastify/swagger convention), which the OpenAPI document and the conformance harness honour.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { HTTP_STATUS, problemPages } from '../http/status.js';
import { escapeHtml, htmlPage, NOT_IN_API_DOCUMENT, refusalPage, sendHtml } from './html-pages.js';
import type { WebPluginOptions } from './plugin-options.js';

/** The single-page app's routes (the web contract), each answered with index.html. */
export const WEB_APP_ROUTES = [
  '/',
  '/inbox/:notificationId',
  '/settings/integrations',
  '/settings/notifications',
  '/catalog',
  '/admin/requests',
  '/admin/moderation',
  '/admin/tokens',
] as const;

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Build output file names: flat, no separators, no dot-files. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** dist/web of this checkout: the project root is the nearest directory above this module with a package.json. */
export function defaultWebDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web');
    const up = path.dirname(dir);
    if (up === dir) return path.resolve('dist', 'web');
    dir = up;
  }
}

/** `code` spans for backticked words; everything else escaped. */
const prose = (s: string): string => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

export async function registerWebApp(app: FastifyInstance, opts: WebPluginOptions & { webDir?: string }): Promise<void> {
  const webDir = opts.webDir ?? defaultWebDir();
  const assetsDir = path.join(webDir, 'assets');
  // A refusal of the root hooks (a token in the query string) on these routes: a page with its status.
  app.setErrorHandler((err, _req, reply) => {
    if (!(err instanceof DomainError) || HTTP_STATUS[err.kind].status >= 500) {
      reply.log.error({ err }, 'web route failed');
      return sendHtml(reply, 500, refusalPage('Something went wrong', 'The request could not be handled. Reload the page.'));
    }
    return sendHtml(reply, HTTP_STATUS[err.kind].status, refusalPage('Bad request', err.message));
  });
  // reply.sendFile only (no routes of its own): the routes below choose paths and headers.
  await app.register(fastifyStatic, { serve: false });

  // index.html, re-read when the build replaces it (a rebuild while the server runs is served at once).
  let cached: { mtimeMs: number; html: string } | undefined;
  const indexHtml = (): string | undefined => {
    const file = path.join(webDir, 'index.html');
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(file, 'utf8') };
    return cached.html;
  };
  const notBuilt = htmlPage(
    'Web app not built',
    `<h1>The web app is not built</h1>
<p>This fluxdesk has no build of its web app (<code>dist/web</code> is missing). Run <code>npm run build</code> in the project directory (<code>npm start</code> builds it when missing), then reload this page.</p>
<p>The HTTP API is unaffected: see <a href="/api/v1/docs">/api/v1/docs</a>.</p>`,
  );

  for (const url of WEB_APP_ROUTES) {
    app.get(url, { schema: NOT_IN_API_DOCUMENT }, async (_req, reply) => {
      const html = indexHtml();
      if (html === undefined) return sendHtml(reply.header('retry-after', '30'), 503, notBuilt);
      return sendHtml(reply, 200, html);
    });
  }

  app.get<{ Params: { '*': string } }>('/assets/*', { schema: NOT_IN_API_DOCUMENT }, async (req, reply) => {
    const name = req.params['*'];
    let isFile = false;
    if (ASSET_NAME.test(name)) {
      try {
        isFile = statSync(path.join(assetsDir, name)).isFile();
      } catch {
        isFile = false;
      }
    }
    if (!isFile) return reply.callNotFound();
    reply.header('cache-control', IMMUTABLE).header('x-content-type-options', 'nosniff');
    return reply.sendFile(name, assetsDir, { cacheControl: false, dotfiles: 'deny' });
  });

  // The service worker (scope /): no-cache, so an update is picked up at once.
  app.get('/sw.js', { schema: NOT_IN_API_DOCUMENT }, async (_req, reply) => {
    if (!existsSync(path.join(webDir, 'sw.js'))) return reply.callNotFound();
    reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    return reply.sendFile('sw.js', webDir, { cacheControl: false });
  });

  // Browsers ask for it on every page (the sign-in pages too): no icon, and no 404 in their consoles.
  app.get('/favicon.ico', { schema: NOT_IN_API_DOCUMENT }, async (_req, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());

  // The error pages: rendered once, from the same table the problems take their titles from.
  const pages = new Map<string, string>();
  for (const p of problemPages()) {
    pages.set(
      p.slug,
      htmlPage(
        p.title,
        `<h1>${escapeHtml(p.title)}</h1>
<p class="type">Problem type <code>${escapeHtml(`${opts.errorsBaseUrl}/${p.slug}`)}</code>, HTTP status ${p.status}.</p>
<h2>What it means</h2>
<p>${prose(p.means)}</p>
<h2>What to do</h2>
<p>${prose(p.todo)}</p>
<p><a href="/errors/">All problem types</a> · <a href="/api/v1/docs">API reference</a></p>`,
      ),
    );
  }
  const index = htmlPage(
    'Problem types',
    `<h1>Problem types</h1>
<p>Every error response of the fluxdesk HTTP API is a problem document (RFC 9457) whose <code>type</code> is one of these pages.</p>
<ul>
${problemPages()
  .map((p) => `<li><a href="/errors/${encodeURIComponent(p.slug)}">${escapeHtml(p.title)}</a> (<code>${escapeHtml(p.slug)}</code>, ${p.status})</li>`)
  .join('\n')}
</ul>`,
  );
  const unknown = (slug: string) =>
    htmlPage(
      'Unknown problem type',
      `<h1>Unknown problem type</h1>
<p>fluxdesk has no problem type <code>${escapeHtml(slug)}</code>. See <a href="/errors/">the list of problem types</a>.</p>`,
    );

  app.get('/errors', { schema: NOT_IN_API_DOCUMENT }, async (_req, reply) => sendHtml(reply, 200, index));
  app.get<{ Params: { slug: string } }>('/errors/:slug', { schema: NOT_IN_API_DOCUMENT }, async (req, reply) => {
    const page = pages.get(req.params.slug);
    return page ? sendHtml(reply, 200, page) : sendHtml(reply, 404, unknown(req.params.slug));
  });
}
