// A real OpenID Connect provider in-process (the `oidc-provider` package, not a mock) for the
// sign-in tests (issue 19): authorization code + PKCE, one confidential client, its development
// login form (any login, any password; the login typed is the account id and its email claim).
//
//   const idp = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`] });
//   startHarness({ env: { ...idp.env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
//   // browser: "Sign in with SSO" -> the provider's form: fill login (the email) and password, "Sign-in"
//
// The redirect URIs are fixed when the provider starts, so the service's port is chosen first
// (freePort in test/helpers/redis-server.ts).
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
