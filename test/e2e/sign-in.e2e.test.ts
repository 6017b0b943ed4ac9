// Sign-in in a real browser: the one-time login link the CLI prints
// (a second use signs nobody in), the redirect of a page visited without a session to
// /auth/login?next=..., OpenID Connect against a real provider run in-process (oidc-provider,
// test/helpers/oidc-provider.ts), the session cookie's attributes, sign out, and axe on the
// sign-in page.
import { spawn } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAxeClean, loginLink, sessionCookie, signIn, useBrowser } from '../helpers/browser.js';
import { newUser, startHarness, uniqueEmail, type Harness } from '../helpers/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/redis-server.js';

let h: Harness;
let idp: TestOidcProvider;
beforeAll(async () => {
  // The provider registers the callback URL up front, so the service's port is chosen first.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({ redirectUris: [`${base}/auth/oidc/callback`] });
  h = await startHarness({ env: { ...idp.env, PORT: String(port), PUBLIC_BASE_URL: base } });
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});

const b = useBrowser(() => h.baseUrl);

/** `node bin/fluxdesk.js login-link --email E` against the harness database: its stdout JSON. */
function cliLoginLink(email: string): Promise<{ url: string; expiresAt: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: h.databaseUrl!, PUBLIC_BASE_URL: h.baseUrl };
  delete env.REDIS_URL;
  delete env.DATA_DIR;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/fluxdesk.js', 'login-link', '--email', email], {
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`login-link exit ${code}: ${err}`))));
  });
}

/** Signed in: the app shows the user's inbox. */
async function expectSignedIn(page: Page, email: string): Promise<void> {
  await expect(page.getByText(email, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/** Not signed in: the app sends the browser to the sign-in page. */
async function expectSignedOut(context: BrowserContext): Promise<void> {
  const page = await context.newPage();
  await page.goto('/');
  await page.waitForURL((u) => u.pathname === '/auth/login');
  await page.close();
}

describe('sign-in (browser)', () => {
  it('the login link the CLI prints signs in once (the GET only shows a "Sign in" button); the session cookie is HttpOnly, SameSite=Lax', async () => {
    const user = await newUser(h);
    const link = await cliLoginLink(user.email);
    expect(link.url).toMatch(new RegExp(`^${h.baseUrl}/auth/link/\\S+$`));
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000 + 5_000);

    const page = b.page;
    await page.goto(link.url);
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    // Opening the link (a mail scanner, a preview) does not use it up nor sign in.
    expect(await sessionCookie(b.context)).toBeUndefined();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await expectSignedIn(page, user.email);
    const cookie = await sessionCookie(b.context);
    expect(cookie).toMatchObject({ name: 'fluxdesk_session', httpOnly: true, secure: false, sameSite: 'Lax', path: '/' });
    const csrf = (await b.context.cookies()).find((c) => c.name === 'fluxdesk_csrf');
    expect(csrf).toMatchObject({ httpOnly: false, sameSite: 'Lax', path: '/' });

    // The same link again, in another browser: nobody is signed in.
    const other = await b.newContext();
    const again = await other.newPage();
    await again.goto(link.url);
    const button = again.getByRole('button', { name: 'Sign in', exact: true });
    if (await button.count()) {
      await button.click();
      await again.waitForLoadState();
    }
    expect(await sessionCookie(other)).toBeUndefined();
    await expectSignedOut(other);
  });

  it('a page visited without a session redirects to /auth/login?next=<path>; signing in there returns to it', async () => {
    const user = await newUser(h);
    const page = b.page;
    await page.goto('/settings/integrations');
    await page.waitForURL((u) => u.pathname === '/auth/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/settings/integrations');
    await expectAxeClean(b, 'sign-in-page');

    // SSO from the sign-in page keeps the destination.
    idp.accounts.set(user.email, { email: user.email, name: 'Test User' });
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill(user.email);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL((u) => u.origin === h.baseUrl && u.pathname === '/settings/integrations');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
    await expectSignedIn(page, user.email);
  });

  it('OIDC sign-in matches the user by email (case-insensitive); an email with no user signs nobody in', async () => {
    const user = await newUser(h);
    const page = b.page;
    await page.goto('/auth/login');
    idp.accounts.set('sso-user', { email: user.email.toUpperCase() });
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.locator('input[name="login"]').fill('sso-user');
    await page.locator('input[name="password"]').fill('x');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL((u) => u.origin === h.baseUrl && u.pathname === '/');
    await expectSignedIn(page, user.email);

    const other = await b.newContext();
    const stranger = await other.newPage();
    await stranger.goto('/auth/login');
    idp.accounts.set('stranger', { email: uniqueEmail('nobody') });
    await stranger.getByRole('link', { name: 'Sign in with SSO' }).click();
    await stranger.locator('input[name="login"]').fill('stranger');
    await stranger.locator('input[name="password"]').fill('x');
    await stranger.getByRole('button', { name: 'Sign-in' }).click();
    await stranger.waitForURL((u) => u.origin === h.baseUrl);
    await stranger.waitForLoadState();
    expect(await sessionCookie(other)).toBeUndefined();
    await expectSignedOut(other);
  });

  it('sign out ends the session: the app then sends the browser to sign in', async () => {
    const user = await newUser(h);
    const page = b.page;
    await signIn(h, page, user);
    await expectSignedIn(page, user.email);
    const before = await sessionCookie(b.context);
    expect(before).toBeDefined();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/auth/login');
    await expectSignedOut(b.context);
    // The old cookie value is dead too (a copy of it would not work).
    const replay = await b.newContext();
    await replay.addCookies([{ ...before!, expires: -1 } as any]);
    await expectSignedOut(replay);
  });

  it('sign out everywhere ends every session of the user', async () => {
    const user = await newUser(h);
    await signIn(h, b.page, user);
    const second = await b.newContext();
    const page2 = await second.newPage();
    await signIn(h, page2, user);
    await expectSignedIn(page2, user.email);

    const csrf = (await b.context.cookies()).find((c) => c.name === 'fluxdesk_csrf')!.value;
    const res = await b.page.request.post('/auth/logout-everywhere', { form: { csrf }, maxRedirects: 0 });
    expect(res.status()).toBeGreaterThanOrEqual(300);
    expect(res.status()).toBeLessThan(400);
    await expectSignedOut(b.context);
    await expectSignedOut(second);
  });

  it('"Sign out everywhere" on the settings page ends this session and the user\'s other ones, not another user\'s; axe clean', async () => {
    const user = await newUser(h);
    const page = b.page;
    await signIn(h, page, user);
    const second = await b.newContext();
    const page2 = await second.newPage();
    await signIn(h, page2, user);
    await expectSignedIn(page2, user.email);
    const someoneElse = await newUser(h);
    const third = await b.newContext();
    await signIn(h, await third.newPage(), someoneElse);

    await page.goto('/settings/notifications');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification settings');
    const button = page.getByRole('button', { name: 'Sign out everywhere', exact: true });
    await expect(button).toBeVisible();
    // The one-line explanation is the button's accessible description.
    const note = page.locator(`#${await button.getAttribute('aria-describedby')}`);
    await expect(note).toHaveText('Ends your sessions on every browser and device.');
    await expectAxeClean(b, 'notification-settings');

    await button.click();
    await page.waitForURL((u) => u.pathname === '/auth/login');
    await expectSignedOut(b.context);
    // The other browser's next call finds its session ended.
    await expectSignedOut(second);
    // Control: another user's session is untouched.
    const stillIn = await third.newPage();
    await stillIn.goto('/');
    await expectSignedIn(stillIn, someoneElse.email);
  });

  it('a sign-out POST without the CSRF field changes nothing', async () => {
    const user = await newUser(h);
    await signIn(h, b.page, user);
    const res = await b.page.request.post('/auth/logout', { form: { csrf: 'wrong' }, maxRedirects: 0 });
    expect(res.status()).toBeGreaterThanOrEqual(400);
    await b.page.goto('/');
    await expectSignedIn(b.page, user.email);
  });

  it('a login link for an unknown email cannot be made', async () => {
    await expect(loginLink(h, uniqueEmail('ghost'))).rejects.toThrow(/not_found|user/i);
  });
});
