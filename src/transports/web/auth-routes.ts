// Sign-in and sessions of the web app (docs/web-sign-in.md): the `/auth/*` routes (sign-in page,
// OIDC start and callback, one-time link page and redeem, sign-out, sign-out everywhere, the pages'
// stylesheet) as small server-rendered pages under the strict CSP. Every decision is an operation in
// src/domain/web/ called through the runner; this file maps HTTP (cookies, forms, redirects, the
// identity provider's protocol) to them and back.
import { timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import { limitClientAddress } from '../../app/address-limit.js';
import { runOperation } from '../../app/run-operation.js';
import type { Logger, Operation } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { beginOidcLogin } from '../../domain/web/begin-oidc-login.js';
import { signInOidc } from '../../domain/web/sign-in-oidc.js';
import { takeOidcLogin } from '../../domain/web/take-oidc-login.js';
import { redeemLoginLink } from '../../domain/web/redeem-login-link.js';
import type { AddressBudgetName } from '../../domain/rate-budgets.rules.js';
import { signOut } from '../../domain/web/sign-out.js';
import type { StartedSession } from '../../domain/web/start-session.js';
import { cookieNames, csrfTokenOrNull, OIDC_LOGIN_TTL_MS, safeNextPath, sessionTokenOrNull } from '../../domain/web/web-session.rules.js';
import { HTTP_STATUS } from '../http/status.js';
import type { OidcConfig } from '../../config.js';
import type { WebPluginOptions } from './plugin-options.js';
import { escapeHtml, HTML_HEADERS, htmlPage, NOT_IN_API_DOCUMENT } from './html-pages.js';
import { WEB_LIMITS } from '../../domain/web/web.limits.js';

/** OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_TRUST_EMAIL. */
export type OidcSettings = OidcConfig;

export interface AuthRoutesOptions extends WebPluginOptions {
  /** Company SSO; absent or null = sign-in by one-time link only. */
  oidc?: OidcSettings | null;
}

const FORM_BODY_LIMIT = 8 * 1024;

const AUTH_CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:28rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin-top:0}
a.button,button{display:inline-block;font:inherit;padding:.6rem 1.2rem;border-radius:.35rem;border:0;background:#2454c5;color:#fff;text-decoration:none;cursor:pointer}
a.button:focus-visible,button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
p.note{color:#4a5263;font-size:.9rem}
code{background:#eef0f4;padding:0 .25rem;border-radius:.2rem}
`;

const page = (title: string, body: string): string => htmlPage(title, body, '/auth/auth.css');

function sendPage(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  // The strict CSP and security headers of every HTML page (html-pages.ts); sign-in pages are never cached.
  return reply.code(status).headers(HTML_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page(title, body));
}

/** A refusal as a page: what happened and the way back to the sign-in page. */
function sendRefusal(reply: FastifyReply, status: number, title: string, message: string, next = '/'): FastifyReply {
  return sendPage(
    reply,
    status,
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/auth/login?next=${encodeURIComponent(next)}">Back to sign-in</a></p>`,
  );
}

const seeOther = (reply: FastifyReply, location: string): FastifyReply => reply.headers({ 'cache-control': 'no-store' }).redirect(location, 303);

/** Query or form field as one string (repeated fields: the first). */
function field(source: unknown, name: string): string | undefined {
  if (!source || typeof source !== 'object') return undefined;
  const v = (source as Record<string, unknown>)[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function sameString(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** The identity provider's configuration, discovered on first use and kept; a failed discovery is tried again next time. */
class OidcClient {
  #config: Promise<oidc.Configuration> | undefined;
  constructor(readonly settings: OidcSettings) {}

  configuration(): Promise<oidc.Configuration> {
    if (!this.#config) {
      const issuer = new URL(this.settings.issuerUrl);
      // Plain http only for an issuer on this machine (tests, a developer's local provider).
      const local = issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
      // client_secret_basic: the token endpoint authentication OpenID Connect assumes when a client registers none.
      const auth = this.settings.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(this.settings.clientSecret);
      this.#config = oidc
        .discovery(issuer, this.settings.clientId, this.settings.clientSecret ?? undefined, auth, local ? { execute: [oidc.allowInsecureRequests] } : undefined)
        .catch((err: unknown) => {
          this.#config = undefined;
          throw err;
        });
    }
    return this.#config;
  }
}

export async function registerAuthRoutes(app: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  // An encapsulated scope: the cookie parser and the form body parser serve these routes only.
  await app.register(async (scope) => authRoutes(scope, opts));
}

async function authRoutes(app: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  const deps = opts.deps;
  const names = cookieNames(opts.publicBaseUrl);
  const origin = new URL(opts.publicBaseUrl).origin;
  const redirectUri = `${opts.publicBaseUrl}/auth/oidc/callback`;
  const sso = opts.oidc ? new OidcClient(opts.oidc) : undefined;

  await app.register(fastifyCookie);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
    const out: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(body as string)) if (!(k in out)) out[k] = v;
    done(null, out);
  });
  // What no route answered itself: a refusal of the root hooks (a token in the query string) with
  // its status and words, a framework error (body too large, bad content type) with its status.
  app.setErrorHandler((err, _req, reply) => {
    const given = typeof (err as { statusCode?: number }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    const status = err instanceof DomainError ? HTTP_STATUS[err.kind].status : given >= 400 && given < 600 ? given : 500;
    if (status >= 500) reply.log.error({ err }, 'sign-in route failed');
    const message = err instanceof DomainError && status < 500 ? err.message : 'The request could not be handled. Try signing in again.';
    return sendRefusal(reply, status, status >= 500 ? 'Something went wrong' : 'Bad request', message);
  });

  const run = async <I, O>(op: Operation<I, O, any>, input: unknown, req: FastifyRequest, system = false): Promise<O> =>
    (
      await runOperation(deps, op, {
        // The sign-in pages (audit `source`, metrics `surface`): not the REST API.
        surface: 'web',
        channel: 'v1',
        requestId: req.id,
        input,
        log: req.log as unknown as Logger,
        system,
      })
    ).output;

  const cookieBase = { path: '/', sameSite: 'lax' as const, secure: names.secure };
  const setSessionCookies = (reply: FastifyReply, s: StartedSession) => {
    const maxAge = Math.max(0, Math.floor((new Date(s.expires_at).getTime() - deps.clock.now().getTime()) / 1000));
    reply.setCookie(names.session, s.session_token, { ...cookieBase, httpOnly: true, maxAge });
    // Read by the app and sent back as x-csrf-token (Connect) or the `csrf` form field.
    reply.setCookie(names.csrf, s.csrf_token, { ...cookieBase, httpOnly: false, maxAge });
  };
  const clearSessionCookies = (reply: FastifyReply) => {
    reply.clearCookie(names.session, { ...cookieBase, httpOnly: true });
    reply.clearCookie(names.csrf, { ...cookieBase, httpOnly: false });
  };
  /** A POST from another site (Origin present and not ours) is refused: login CSRF, forged sign-outs. */
  const foreignOrigin = (req: FastifyRequest): boolean => {
    const o = req.headers.origin;
    return o !== undefined && o !== origin;
  };
  const userAgent = (req: FastifyRequest): string | null => {
    const ua = req.headers['user-agent'];
    return typeof ua === 'string' ? ua.slice(0, WEB_LIMITS.userAgentKeptMax) : null;
  };

  /** A route's per-address window, checked before it does anything else; over it, a 429 page with Retry-After. */
  const perAddress = (budget: AddressBudgetName) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      await limitClientAddress(deps, budget, req.ip, req.log as unknown as Logger);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'rate_limited') throw err;
      const wait = err.rateLimit?.retryAfterSeconds ?? 60;
      return sendRefusal(
        reply.header('retry-after', String(wait)),
        429,
        'Too many sign-in attempts',
        `Too many sign-in requests came from your network address. Wait ${wait} seconds, then try again.`,
      );
    }
  };

  app.get('/auth/auth.css', { schema: NOT_IN_API_DOCUMENT }, async (_req, reply) =>
    reply.headers({ 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' }).type('text/css; charset=utf-8').send(AUTH_CSS),
  );

  app.get('/auth/login', { schema: NOT_IN_API_DOCUMENT }, async (req, reply) => {
    const next = safeNextPath(field(req.query, 'next'));
    const ssoLink = sso
      ? `<p><a class="button" href="/auth/oidc/start?next=${encodeURIComponent(next)}">Sign in with SSO</a></p>`
      : '<p>Company single sign-on is not configured on this server.</p>';
    return sendPage(
      reply,
      200,
      'Sign in',
      `<h1>Sign in to fluxdesk</h1>
${ssoLink}
<p class="note">Without SSO, an operator can give you a one-time sign-in link, valid for 10 minutes: <code>fluxdesk login-link --email you@example.com</code>.</p>`,
    );
  });

  app.get('/auth/oidc/start', { schema: NOT_IN_API_DOCUMENT, preHandler: perAddress('sign_in_oidc_start') }, async (req, reply) => {
    if (!sso) return sendRefusal(reply, 404, 'Single sign-on is not configured', 'This server has no OpenID Connect provider configured.');
    let config: oidc.Configuration;
    try {
      config = await sso.configuration();
    } catch (err) {
      req.log.warn({ err: { message: (err as Error).message } }, 'OIDC discovery failed');
      return sendRefusal(reply, 503, 'Single sign-on is unavailable', 'The identity provider could not be reached. Try again in a moment.');
    }
    let begun: Awaited<ReturnType<typeof beginOidcLogin.handler>>;
    try {
      begun = await run(beginOidcLogin, { next: safeNextPath(field(req.query, 'next')) }, req);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'sign_in_busy') throw err;
      return sendRefusal(
        reply.header('retry-after', String(err.retryAfterSeconds ?? 60)),
        503,
        'Single sign-on is busy',
        'Too many sign-ins are in progress right now. Try again in a minute.',
      );
    }
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(begun.code_verifier),
      code_challenge_method: 'S256',
      state: begun.state,
      nonce: begun.nonce,
    });
    // Binds the callback to this browser (a callback carrying another browser's state is refused).
    reply.setCookie(names.oidc, begun.state, { ...cookieBase, httpOnly: true, maxAge: Math.floor(OIDC_LOGIN_TTL_MS / 1000) });
    return reply.headers({ 'cache-control': 'no-store' }).redirect(url.href, 302);
  });

  app.get('/auth/oidc/callback', { schema: NOT_IN_API_DOCUMENT, preHandler: perAddress('sign_in_oidc_callback') }, async (req, reply) => {
    if (!sso) return sendRefusal(reply, 404, 'Single sign-on is not configured', 'This server has no OpenID Connect provider configured.');
    const state = field(req.query, 'state');
    const cookieState = req.cookies[names.oidc];
    reply.clearCookie(names.oidc, { ...cookieBase, httpOnly: true });
    if (field(req.query, 'error') !== undefined) {
      return sendRefusal(reply, 400, 'Sign-in was not completed', 'The identity provider did not sign you in (cancelled or refused). You can try again.');
    }
    if (!state || !cookieState || !sameString(state, cookieState)) {
      return sendRefusal(reply, 400, 'Sign-in expired', 'This sign-in attempt is not from this browser or has expired. Start again.');
    }
    let taken: { code_verifier: string; nonce: string; next: string };
    try {
      taken = await run(takeOidcLogin, { state }, req);
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'validation')
        return sendRefusal(reply, 400, 'Sign-in expired', 'This sign-in attempt has expired or was already used. Start again.');
      throw err;
    }
    let claims: Record<string, unknown>;
    try {
      const config = await sso.configuration();
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      const tokens = await oidc.authorizationCodeGrant(config, new URL(`${redirectUri}${query}`), {
        pkceCodeVerifier: taken.code_verifier,
        expectedState: state,
        expectedNonce: taken.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      // Providers that keep the email out of the ID token answer it at the userinfo endpoint.
      if (claims.email === undefined && tokens.access_token) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
      }
    } catch (err) {
      req.log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, 'OIDC code exchange failed');
      // The provider refused the code the browser brought (made up, used or expired): the request's fault.
      if (err instanceof oidc.ResponseBodyError && err.error === 'invalid_grant')
        return sendRefusal(reply, 400, 'Sign-in failed', 'The identity provider did not accept this sign-in (it may have expired). Start again.', taken.next);
      return sendRefusal(reply, 502, 'Sign-in failed', 'The answer of the identity provider could not be verified. Start again.', taken.next);
    }
    const verified = claims.email_verified;
    try {
      const session = await run(
        signInOidc,
        {
          issuer: String(claims.iss ?? ''),
          subject: String(claims.sub ?? ''),
          email: typeof claims.email === 'string' ? claims.email : null,
          email_verified: verified === false || verified === 'false' ? false : verified === true || verified === 'true' ? true : null,
          trust_unverified_email: sso.settings.trustEmail,
          user_agent: userAgent(req),
          previous_session_token: sessionTokenOrNull(req.cookies[names.session]),
        },
        req,
        true,
      );
      setSessionCookies(reply, session);
      return seeOther(reply, taken.next);
    } catch (err) {
      if (err instanceof DomainError && err.kind !== 'internal' && err.kind !== 'unavailable')
        return sendRefusal(reply, 403, 'You cannot sign in here', refusalText(err), taken.next);
      throw err;
    }
  });

  app.get<{ Params: { token: string } }>('/auth/link/:token', { schema: NOT_IN_API_DOCUMENT }, async (req, reply) => {
    // The link is redeemed only by the POST: mail scanners and link previews fetch with GET.
    const next = safeNextPath(field(req.query, 'next'));
    const action = `/auth/link/${encodeURIComponent(req.params.token)}${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`;
    return sendPage(
      reply,
      200,
      'Sign in',
      `<h1>Sign in to fluxdesk</h1>
<p>This one-time link signs you in on this browser. It works once and for 10 minutes after it was made.</p>
<form method="post" action="${escapeHtml(action)}">
<button type="submit">Sign in</button>
</form>`,
    );
  });

  app.post<{ Params: { token: string } }>('/auth/link/:token', { schema: NOT_IN_API_DOCUMENT, preHandler: perAddress('sign_in_link') }, async (req, reply) => {
    const next = safeNextPath(field(req.query, 'next') ?? field(req.body, 'next'));
    if (foreignOrigin(req)) return sendRefusal(reply, 403, 'Sign-in refused', 'This sign-in request came from another site.', next);
    try {
      const session = await run(
        redeemLoginLink,
        {
          token: req.params.token.slice(0, WEB_LIMITS.secretValueMax),
          user_agent: userAgent(req),
          previous_session_token: sessionTokenOrNull(req.cookies[names.session]),
        },
        req,
      );
      setSessionCookies(reply, session);
      return seeOther(reply, next);
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'validation')
        return sendRefusal(reply, 400, 'Sign-in link not valid', 'This sign-in link is unknown, has expired or was already used. Ask for a new one.', next);
      throw err;
    }
  });

  const logout = (everywhere: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    if (foreignOrigin(req)) return sendRefusal(reply, 403, 'Sign-out refused', 'This sign-out request came from another site.');
    // A cookie that cannot be a session is no session: its cookies are cleared, nothing else.
    const token = sessionTokenOrNull(req.cookies[names.session]);
    if (token) {
      try {
        await run(signOut, { session_token: token, csrf_token: csrfTokenOrNull(field(req.body, 'csrf')), everywhere }, req);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'unauthenticated')
          return sendRefusal(reply, 403, 'Sign-out refused', 'The form was missing its security token. Reload the page and sign out again.');
        throw err;
      }
    }
    clearSessionCookies(reply);
    return seeOther(reply, '/auth/login');
  };
  app.post('/auth/logout', { schema: NOT_IN_API_DOCUMENT }, logout(false));
  app.post('/auth/logout-everywhere', { schema: NOT_IN_API_DOCUMENT }, logout(true));
}

/** Why an OIDC sign-in was refused, in the person's words. */
function refusalText(err: DomainError): string {
  switch (err.code) {
    case 'domain_not_allowed':
      return `The email domain of your account (${String(err.extra.domain ?? '')}) is not one this fluxdesk accepts.`;
    case 'no_account':
      return `There is no fluxdesk account for ${String(err.extra.email ?? 'your email address')}. Ask an administrator to invite you.`;
    case 'user_inactive':
      return 'Your fluxdesk account is not active.';
    case 'email_not_verified':
      return 'Your identity provider has not confirmed that your email address is verified, so it cannot be matched to a fluxdesk account. Verify it at your identity provider, or ask an administrator.';
    case 'identity_conflict':
      return 'This fluxdesk account is already linked to another identity at your identity provider. Ask an administrator.';
    case 'email_missing':
      return 'Your identity provider did not tell us your email address.';
    default:
      return err.message;
  }
}
