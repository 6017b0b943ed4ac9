// The web app's Connect calls: no Authorization header, the session cookie and the
// `x-csrf-token` header instead. One function for every Connect handler (unary ones through
// call.ts, streaming ones such as WatchInbox): cookie -> the session's user as an agent principal.
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { AppDeps } from '../../app/deps.js';
import { runOperation } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import type { AgentPrincipal } from '../../domain/principal.js';
import { DomainError } from '../../domain/errors.js';
import { toConnectError } from './errors.js';
import { requestIdFrom } from '../http/request-id.js';
import { cookieNames } from '../../domain/web/web-session.rules.js';
import { resolveWebSession } from '../../domain/web/resolve-web-session.js';
import { WEB_LIMITS } from '../../domain/web/web.limits.js';

/** The principal the request gate (serving.ts) resolved from the session cookie, when it did. */
export const SESSION_PRINCIPAL = createContextKey<AgentPrincipal | undefined>(undefined, { description: 'web session principal' });

/** One cookie's value from a Cookie header (first occurrence), or undefined. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let v = part.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    try {
      v = decodeURIComponent(v);
    } catch {
      // kept as sent: an undecodable value is just an unknown session
    }
    return v === '' ? undefined : v;
  }
  return undefined;
}

/**
 * `cookieHeader`: the request's Cookie header; `csrfHeader`: its `x-csrf-token` header.
 * Returns undefined when the request carries no session cookie (the caller then goes on without a
 * session: a missing Authorization header is refused as usual). Otherwise the session's user, or
 * a DomainError (unauthenticated) is thrown: `session_expired` for an unknown, signed-out or
 * expired session (or a user no longer active), `csrf_mismatch` for a missing or wrong CSRF header.
 */
export async function sessionPrincipal(
  deps: AppDeps,
  cookieHeader: string | null | undefined,
  csrfHeader: string | null | undefined,
  requestId?: string,
): Promise<AgentPrincipal | undefined> {
  const token = readCookie(cookieHeader, cookieNames(deps.config.publicBaseUrl).session);
  if (token === undefined) return undefined;
  const rid = requestId ?? requestIdFrom(undefined);
  const r = await runOperation(deps, resolveWebSession, {
    surface: 'connect',
    channel: 'v1',
    requestId: rid,
    input: {
      session_token: token.slice(0, WEB_LIMITS.secretValueMax),
      csrf_token: csrfHeader ? csrfHeader.slice(0, WEB_LIMITS.secretValueMax) : null,
      check_csrf: true,
    },
    log: deps.log.child({ requestId: rid }) as Logger,
  });
  return r.output.principal;
}

/** sessionPrincipal from a Connect call's own headers; a refusal as the ConnectError the caller gets. */
export async function sessionOfCall(deps: AppDeps, hctx: HandlerContext, requestId?: string): Promise<AgentPrincipal | undefined> {
  try {
    return await sessionPrincipal(deps, hctx.requestHeader.get('cookie'), hctx.requestHeader.get('x-csrf-token'), requestId);
  } catch (err) {
    throw err instanceof DomainError ? toConnectError(err) : err;
  }
}
