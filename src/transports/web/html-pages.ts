// The pieces every HTML page of this process is made of (the web app's pages, the /errors pages, the
// sign-in pages, the root hooks' refusals): the strict CSP and security headers, escaping, the page
// shell, and the route flag that keeps these routes out of the OpenAPI document.
import type { FastifyReply } from 'fastify';
import { PAGE_SECURITY_HEADERS } from '../http/page-security.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The route is not part of the HTTP API: the OpenAPI document does not list it (as with @fastify/swagger). */
    hide?: boolean;
  }
}

/** Route `schema` of every web route: not part of the HTTP API, so not in the OpenAPI document. */
export const NOT_IN_API_DOCUMENT = { hide: true } as const;

/** Headers of every page of the web app (the app, the error pages, sign-in pages): revalidated on each load. */
export const HTML_HEADERS: Readonly<Record<string, string>> = Object.freeze({ ...PAGE_SECURITY_HEADERS, 'cache-control': 'no-cache' });

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * A small self-contained HTML page (no script, no inline style: the CSP allows neither inline);
 * `stylesheet`: a same-origin stylesheet to link (the sign-in pages' /auth/auth.css).
 */
export function htmlPage(title: string, body: string, stylesheet?: string): string {
  const link = stylesheet ? `\n<link rel="stylesheet" href="${escapeHtml(stylesheet)}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · fluxdesk</title>${link}
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(HTML_HEADERS).type('text/html; charset=utf-8').send(html);
}

/** The sign-in and error pages, whose refusals are pages too (not problem documents). */
export const isWebPagePath = (url: string): boolean => url.startsWith('/auth/') || /^\/errors(?:[/?]|$)/.test(url);

/** A refusal as a page: what happened, and the way back to sign-in. */
export function refusalPage(title: string, message: string): string {
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/auth/login?next=%2F">Back to sign-in</a></p>`,
  );
}
