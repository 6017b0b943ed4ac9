// The API viewer (/api/v1/docs, Swagger UI) in a real browser: it renders the operations of the
// served document and runs a call under its own Content-Security-Policy without a violation, and
// asks nothing of any other origin. The policy's text itself: test/integration/web/security-headers.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, useBrowser } from '../helpers/browser.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

describe('API docs page (browser)', () => {
  it('Swagger UI renders the operations and runs "Try it out" under the page CSP without a violation; nothing from another origin', async () => {
    const page = b.page;
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.baseUrl) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    const res = await page.goto('/api/v1/docs');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");

    // The operations list is rendered from /api/v1/openapi.json.
    const health = page.locator('.opblock-summary-path[data-path="/api/v1/health"]');
    await expect(health).toBeVisible();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);

    // Opening an operation (schemas, syntax highlighting) and calling it (fetch to this origin).
    await health.click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect(page.locator('.live-responses-table tbody .response-col_status')).toHaveText('200');
    await expect(page.locator('.live-responses-table')).toContainText('"ok": true');

    expect(cspViolations(b)).toEqual([]);
    expect(elsewhere).toEqual([]);
  });

  it('control: the same page under a policy without data: images reports violations (the check sees them)', async () => {
    const page = b.page;
    // Rewrites the page's policy on the way in: Swagger UI's icons are data: URIs in its stylesheet.
    await page.route('**/api/v1/docs', async (route) => {
      const r = await route.fetch();
      const csp = r.headers()['content-security-policy']!.replace("img-src 'self' data:", "img-src 'self'");
      await route.fulfill({ response: r, headers: { ...r.headers(), 'content-security-policy': csp } });
    });
    await page.goto('/api/v1/docs');
    await expect(page.locator('.opblock-summary-path[data-path="/api/v1/health"]')).toBeVisible();
    await expect.poll(() => cspViolations(b).length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(cspViolations(b).join('\n')).toMatch(/img-src/);
  });
});
