// Other pages in a real browser: every problem `type` URI a real error
// response carries opens a page whose heading is that problem's title (/errors/<slug>), axe clean;
// the strict Content-Security-Policy is on the HTML and the pages run under it without a
// violation; item bodies (expanded / collapsed / preview, sanitised); a session ended elsewhere;
// keyboard use. (The /admin pages: admin.e2e.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { event, http, newPersonalToken, newUser, publish, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

describe('problem type pages (browser)', () => {
  it('the type URI of a real 401, 400 and 404 problem opens a page headed by its title; axe clean; no CSP violation', async () => {
    const t = await newPersonalToken(h);
    const problems = [
      await publish(h, 'svc-in-pers-not-a-token', event(h)),
      await publish(h, t.token, event(h, { severity: 'loud' })),
      await http(h, 'GET', `/api/v1/events/${randomUUID()}`, { token: t.token }),
    ].map((r) => r.body as { type: string; title: string; status: number });
    expect(problems.map((p) => p.status)).toEqual([401, 400, 404]);

    const page = b.page;
    for (const p of problems) {
      expect(p.type.startsWith(`${h.baseUrl}/errors/`), p.type).toBe(true);
      const res = await page.goto(p.type);
      expect(res?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(p.title);
    }
    await expectAxeClean(b, 'error-page');

    // The index lists them, each a link to its page.
    await page.goto('/errors/');
    for (const p of problems) await expect(page.getByRole('link', { name: p.title, exact: true })).toHaveAttribute('href', new URL(p.type).pathname);
    expect(cspViolations(b)).toEqual([]);
  });

  it('an unknown slug answers 404 with a page that says so', async () => {
    const res = await b.page.goto('/errors/no-such-problem');
    expect(res?.status()).toBe(404);
    await expect(b.page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(b.page.locator('body')).toContainText('no-such-problem');
  });
});

describe('HTML under a strict Content-Security-Policy (browser)', () => {
  it('the app page carries the contract CSP and runs under it without a violation', async () => {
    const user = await newUser(h);
    await signIn(h, b.page, user);
    const res = await b.page.goto('/');
    const csp = res?.headers()['content-security-policy'] ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ])
      expect(csp, csp).toContain(directive);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    await expect(b.page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
    await b.page.getByRole('link', { name: 'Integrations' }).click();
    await expect(b.page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
    expect(cspViolations(b)).toEqual([]);
  });
});

describe('item body (browser)', () => {
  const HOSTILE = [
    '## What happened',
    '',
    'The nightly job failed. <script>window.__pwned = 1</script>',
    '',
    '<img src="https://images.example.test/pixel.png" onerror="window.__pwned = 2">',
    '',
    '![tracking pixel](https://images.example.test/track.png)',
    '',
    '[run this](javascript:window.__pwned=3) and [read the docs](https://docs.example.test/runbook)',
  ].join('\n');

  it('expanded, collapsed ("Details") and preview (first ~200 characters) bodies; sanitised: no script runs, no remote image loads, no javascript: link', async () => {
    const t = await newPersonalToken(h);
    const long = `${'Disk usage on db-1 crossed 90 percent and keeps growing. '.repeat(8)}End.`;
    const items = {
      expanded: `Expanded ${randomUUID().slice(0, 8)}`,
      collapsed: `Collapsed ${randomUUID().slice(0, 8)}`,
      preview: `Preview ${randomUUID().slice(0, 8)}`,
    };
    const bodies = { expanded: HOSTILE, collapsed: HOSTILE, preview: long };
    for (const [mode, title] of Object.entries(items))
      expect(
        (
          await publish(
            h,
            t.token,
            event(h, { title, event_type: `personal.body.${mode}`, markdown_body: bodies[mode as keyof typeof bodies], markdown_body_rendering: mode }),
          )
        ).status,
      ).toBe(202);

    const page = b.page;
    const remote: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.baseUrl)) remote.push(r.url());
    });
    await signIn(h, page, t.user);
    const list = page.getByRole('list', { name: 'Inbox', exact: true });

    await list.getByRole('link', { name: items.expanded, exact: true }).click();
    await expect(page.getByRole('heading', { level: 2, name: 'What happened' })).toBeVisible();
    await expect(page.locator('body')).toContainText('<script>window.__pwned = 1</script>');
    await expect(page.getByRole('link', { name: 'read the docs' })).toHaveAttribute('href', 'https://docs.example.test/runbook');
    await expect(page.getByRole('link', { name: 'read the docs' })).toHaveAttribute('target', '_blank');
    await expect(page.getByRole('link', { name: 'run this' })).toHaveCount(0);
    expect(await page.locator('main img, main script, main [onerror]').count()).toBe(0);

    await page.getByRole('link', { name: /Inbox/ }).first().click();
    await list.getByRole('link', { name: items.collapsed, exact: true }).click();
    const details = page.locator('details', { has: page.locator('summary', { hasText: /^Details$/ }) });
    await expect(details).toHaveCount(1);
    await expect(page.getByRole('heading', { level: 2, name: 'What happened' })).not.toBeVisible();
    await page.locator('summary', { hasText: /^Details$/ }).click();
    await expect(page.getByRole('heading', { level: 2, name: 'What happened' })).toBeVisible();

    await page.getByRole('link', { name: /Inbox/ }).first().click();
    await list.getByRole('link', { name: items.preview, exact: true }).click();
    const summary = page.locator('details > summary');
    await expect(summary).toHaveCount(1);
    const text = ((await summary.textContent()) ?? '').trim();
    expect(text.startsWith('Disk usage on db-1 crossed 90 percent')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(201);
    expect(text.endsWith('…')).toBe(true);

    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
    expect(remote).toEqual([]);
    expect(cspViolations(b)).toEqual([]);
  });
});

describe('a session ended elsewhere (browser)', () => {
  /** A new user signed in, on /settings/integrations. */
  async function integrationsPageOfNewUser() {
    const user = await newUser(h);
    const page = b.page;
    await signIn(h, page, user);
    await page.goto('/settings/integrations');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
    // Its token list loaded (a new user has none): a session ended after this meets the next call,
    // not a load still on its way (which would send the page to sign-in before the form is used).
    await expect(page.getByText('No tokens yet.')).toBeVisible();
    return { user, page };
  }

  /** The page went to sign-in, set to come back to the integrations page. */
  async function sentToSignIn(page: import('playwright-core').Page, timeout?: number): Promise<void> {
    await page.waitForURL((u) => u.pathname === '/auth/login', { timeout });
    expect(new URL(page.url()).searchParams.get('next')).toBe('/settings/integrations');
  }

  it('sign-out everywhere from another browser sends an open page to /auth/login?next=<its path> at once (its live inbox stream ends)', async () => {
    const { user, page } = await integrationsPageOfNewUser();

    // The same person signs out everywhere from another browser; this page does nothing.
    const other = await b.newContext();
    const otherPage = await other.newPage();
    await signIn(h, otherPage, user);
    const csrf = (await other.cookies()).find((c) => c.name === 'fluxdesk_csrf')!.value;
    const out = await otherPage.request.post('/auth/logout-everywhere', { form: { csrf }, maxRedirects: 0 });
    expect(out.status()).toBe(303);

    await sentToSignIn(page, 5000);
  });

  it('a session that ended without a word to open pages: the next call sends the page to /auth/login?next=<its path>; nothing is changed', async () => {
    const { user, page } = await integrationsPageOfNewUser();

    // Ended in the database alone (as an expiry would be): no stream is told.
    const db = h.svc.deps.orm.em.fork().getConnection();
    await db.execute('update web_sessions set revoked_at = now() where user_id = ?', [user.userId]);

    await page.getByLabel('Label', { exact: true }).fill('Too late');
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    await sentToSignIn(page);
    const tokens = await db.execute('select count(*)::int as n from inbound_tokens where owner_user_id = ?', [user.userId]);
    expect(tokens[0].n).toBe(0);
  });
});

describe('keyboard (browser)', () => {
  /** Presses Tab until the focused element has the accessible text wanted (at most 40 stops). */
  async function tabTo(page: import('playwright-core').Page, text: string): Promise<void> {
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
      if (focused === text) return;
    }
    throw new Error(`Tab never reached "${text}"`);
  }

  it('the first Tab stop skips to the content; an item opens and is marked read with the keyboard alone', async () => {
    const t = await newPersonalToken(h);
    const title = `Keyboard ${randomUUID().slice(0, 8)}`;
    expect((await publish(h, t.token, event(h, { title }))).status).toBe(202);
    const page = b.page;
    await signIn(h, page, t.user);
    await expect(page.getByRole('list', { name: 'Inbox', exact: true }).getByRole('link', { name: title })).toBeVisible();

    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to content');
    await tabTo(page, title);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
    await tabTo(page, 'Mark read');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Mark read', exact: true })).toHaveCount(0);
    await expect(page.getByText(/^Read\b/)).toBeVisible();
  });
});
