// The app's Connect clients: the same generated services every other client uses, over
// @connectrpc/connect-web to this origin. Authentication is the session cookie (sent by the browser)
// plus the CSRF token the session was issued with, read from the `__Host-fluxdesk_csrf` cookie (an
// https deployment) or `fluxdesk_csrf` (plain http) and sent as `x-csrf-token` on every call. JSON
// format (useBinaryFormat: false): the payloads are small, and requests, stream messages and error
// details stay readable in the browser's network panel and in the end-to-end tests; the binary
// codec would save a few bytes per call, nothing the inbox needs.
import { type Client, Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { AccountService } from '../../gen/fluxdesk/account/v1/account_pb.js';
import { InboxService, ViewerService } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';

/** The CSRF cookie's names (docs/web-sign-in.md), in the order read: the https name first. */
export const CSRF_COOKIES = ['__Host-fluxdesk_csrf', 'fluxdesk_csrf'] as const;

/** The value of a cookie of this document, or '' when absent. */
export function readCookie(name: string): string {
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return part.slice(eq + 1).trim();
      }
    }
  }
  return '';
}

export const csrfToken = (): string => readCookie(CSRF_COOKIES[0]) || readCookie(CSRF_COOKIES[1]);

/** Where the sign-in page sends the browser back to: the current path and query. */
export const loginUrl = (): string => `/auth/login?next=${encodeURIComponent(location.pathname + location.search)}`;

let redirecting = false;
/** An unauthenticated answer from any call means the session is gone: sign in again, then come back here. */
export function redirectToLogin(): void {
  if (redirecting) return;
  redirecting = true;
  location.assign(loginUrl());
}

export const isUnauthenticated = (e: unknown): boolean => e instanceof ConnectError && e.code === Code.Unauthenticated;

const csrf: Interceptor = (next) => async (req) => {
  const token = csrfToken();
  if (token) req.header.set('x-csrf-token', token);
  try {
    return await next(req);
  } catch (e) {
    if (isUnauthenticated(e)) redirectToLogin();
    throw e;
  }
};

/** The one transport of the app (this origin, JSON, the CSRF header): lazily loaded pages make their own clients from it. */
export const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: false,
  interceptors: [csrf],
  fetch: (input, init) => globalThis.fetch(input, { ...init, credentials: 'same-origin' }),
});

export const inbox: Client<typeof InboxService> = createClient(InboxService, transport);
export const viewer: Client<typeof ViewerService> = createClient(ViewerService, transport);
export const account: Client<typeof AccountService> = createClient(AccountService, transport);

/** A short human text of an error for a toast or an inline message. */
export function errorText(e: unknown): string {
  if (e instanceof ConnectError) return e.rawMessage || Code[e.code] || 'request failed';
  if (e instanceof Error) return e.message;
  return String(e);
}

export { Code, ConnectError };
