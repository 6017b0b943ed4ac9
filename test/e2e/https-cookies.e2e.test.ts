// The web app under an https deployment's cookie names (`__Host-fluxdesk_session`,
// `__Host-fluxdesk_csrf`): it reads the `__Host-` CSRF cookie, so its Connect calls and its
// sign-out forms carry the right token. The harness listens on plain http on 127.0.0.1, which
// Chromium treats as a secure context (Secure and `__Host-` cookies are kept there). The service's
// origin is the https one, so a form the browser posts from this address is refused as another
// site's: the session is made by redeeming a login link outside the browser (its cookies handed to
// the browser), and the sign-out form's fields are posted with the https Origin.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { newUser, operator, startHarness, type Harness, type TestUser } from '../helpers/harness.js';

const HTTPS_BASE = 'https://fluxdesk.example.test';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { PUBLIC_BASE_URL: HTTPS_BASE } });
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

/** A session of `user` as the service sets it under https: the Set-Cookie lines, put into the browser context. */
async function sessionInto(context: BrowserContext, user: TestUser, rename: (name: string) => string = (n) => n): Promise<string[]> {
  const { url } = await operator<{ url: string }>(h, 'web.create_login_link', { email: user.email });
  const res = await fetch(`${h.baseUrl}${new URL(url).pathname}`, { method: 'POST', redirect: 'manual', headers: { origin: HTTPS_BASE } });
  expect(res.status).toBe(303);
  const cookies = res.headers.getSetCookie().map((line) => {
    const pair = line.split(';')[0]!;
    const eq = pair.indexOf('=');
    return { name: rename(pair.slice(0, eq)), value: pair.slice(eq + 1) };
  });
  await context.addCookies(cookies.map((c) => ({ ...c, domain: '127.0.0.1', path: '/', secure: true, sameSite: 'Lax' as const })));
  return cookies.map((c) => c.name).sort();
}

async function expectSignedIn(page: Page, email: string): Promise<void> {
  await page.goto('/');
  await expect(page.getByText(email, { exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
}

describe('https cookie names (browser)', () => {
  it('the app reads __Host-fluxdesk_csrf: its calls are accepted and the "Sign out everywhere" form carries its token', async () => {
    const user = await newUser(h);
    expect(await sessionInto(b.context, user)).toEqual(['__Host-fluxdesk_csrf', '__Host-fluxdesk_session']);
    const page = b.page;
    await expectSignedIn(page, user.email);
    expect(await page.evaluate(() => document.cookie)).toMatch(/(^|; )__Host-fluxdesk_csrf=fdc_/);

    await page.getByRole('link', { name: 'Notifications' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification settings');
    // A call with x-csrf-token from the cookie (a refusal would send the page to sign-in instead).
    await expect(page.getByText('No chat destination is set.')).toBeVisible();
    // The form carries the token of the __Host- cookie. Its post is sent with the https origin (the
    // browser would send this http address's, which the service refuses as another site's).
    const button = page.getByRole('button', { name: 'Sign out everywhere', exact: true });
    await expect(button).toBeVisible();
    const csrf = (await b.context.cookies()).find((c) => c.name === '__Host-fluxdesk_csrf')!.value;
    const field = page.locator('form[action="/auth/logout-everywhere"] input[name="csrf"]');
    expect(await field.inputValue()).toBe(csrf);
    const out = await page.request.post('/auth/logout-everywhere', {
      form: { csrf: await field.inputValue() },
      headers: { origin: HTTPS_BASE },
      maxRedirects: 0,
    });
    expect(out.status()).toBe(303);
    expect(out.headers().location).toBe('/auth/login');
    // The open page's live stream ends on the sign-out and sends it to sign-in by itself (a goto
    // racing that navigation is aborted); a page loaded afresh is sent there too.
    await page.waitForURL((u) => u.pathname === '/auth/login');
    const fresh = await b.context.newPage();
    await fresh.goto('/');
    await fresh.waitForURL((u) => u.pathname === '/auth/login');
  });

  it('control: the same session with its CSRF cookie under a name the app does not read is refused (the page goes to sign-in)', async () => {
    const user = await newUser(h);
    await sessionInto(b.context, user, (n) => (n === '__Host-fluxdesk_csrf' ? '__Host-other_csrf' : n));
    await b.page.goto('/');
    await b.page.waitForURL((u) => u.pathname === '/auth/login');
  });
});
