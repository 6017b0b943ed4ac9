// A real OpenID Connect provider in-process (the `oidc-provider` package, not a mock) for the
// sign-in tests: authorization code + PKCE, one confidential client, its development login form (any
// password; the login typed is the account id and its email claim). Its redirect URIs are fixed when
// it starts, so the service's port is chosen first (freePort in test/helpers/redis-server.ts).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OidcAccount {
  email: string;
  name?: string;
  /** Default true; null: the claim is not sent at all (providers that never send it). */
  email_verified?: boolean | null;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET for the harness. */
  env: Record<string, string>;
  /** Claims per login (the account id typed in the login form); default: the login as email, verified. */
  accounts: Map<string, OidcAccount>;
  close(): Promise<void>;
}

export interface OidcProviderOptions {
  redirectUris: string[];
  /** Skip the consent page (the client is first-party). Default true. */
  autoConsent?: boolean;
}

/**
 * ```ts
 * const idp = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`] });
 * startHarness({ env: { ...idp.env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
 * // browser: "Sign in with SSO" -> the provider's form: login (the email) and password, "Sign-in"
 * ```
 */
export async function startOidcProvider(opts: OidcProviderOptions): Promise<TestOidcProvider> {
  // The package ships no type declarations: loaded as an untyped module.
  const { default: Provider } = (await import('oidc-provider' as string)) as { default: any };
  // Its development-only notices (in-memory adapter, generated keys, the dev login form) are what a
  // test provider is made of: kept out of the test output while this provider runs, nothing else.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && /oidc-provider WARNING: .*development-only/.test(args[0])) return;
    warn(...args);
  };
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `fluxdesk-test-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('hex');
  const accounts = new Map<string, OidcAccount>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, sub: string) {
      const a = accounts.get(sub) ?? { email: sub };
      return {
        accountId: sub,
        async claims() {
          const verified = a.email_verified === undefined ? true : a.email_verified;
          return { sub, email: a.email, ...(verified === null ? {} : { email_verified: verified }), name: a.name ?? a.email.split('@')[0] };
        },
      };
    },
    ...(opts.autoConsent === false
      ? {}
      : {
          async loadExistingGrant(ctx: any) {
            const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
            if (existing) return ctx.oidc.provider.Grant.find(existing);
            const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
            grant.addOIDCScope('openid email profile');
            await grant.save();
            return grant;
          },
        }),
  });
  handler = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    env: { OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret },
    accounts,
    async close() {
      console.warn = warn;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Cookies by name, as a browser's jar across the service and the provider (paths ignored: names do not collide). */
export class CookieJar {
  readonly values = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || attrs.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a))) this.values.delete(name);
      else this.values.set(name, value);
    }
  }
  header(): string {
    return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * From `start` through redirects and the provider's login form (login: `login`, any password) and
 * consent form, as a browser would (manual redirects, one jar), to the first URL `done` accepts,
 * which is returned unfetched (the service's callback, say).
 */
export async function followProviderForms(start: URL, login: string, jar: CookieJar, done: (url: URL) => boolean): Promise<URL> {
  let url = start;
  let init: { method: string; body?: string } = { method: 'GET' };
  for (let step = 0; step < 20; step++) {
    if (done(url)) return url;
    const res = await fetch(url, {
      method: init.method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: init.body,
    });
    jar.store(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url);
      init = { method: 'GET' };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !prompt) throw new Error(`${init.method} ${url.href} answered ${res.status}: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    init = { method: 'POST', body: new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString() };
  }
  throw new Error('more than 20 steps before the end of the sign-in');
}
