// The catalog a person uses, in a real browser (inbound mode 3 from its start): a member applies
// for a row at /catalog (a list named "Catalog") and sees "Pending"; an admin approves it with a
// note at /admin/requests (a list named "Pending requests"); the member's open page turns
// "Approved" and the decision is in their inbox; then the row's tools-token claims the member's
// personal token and publishes, and the event appears in the member's open inbox live. Also:
// withdraw, a member refused at /admin/requests, the navigation, axe-core clean on each page.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { closeSessions } from '../helpers/connect.js';
import { event, newUser, publish, startHarness, type Harness } from '../helpers/harness.js';
import { adminTools, claim, sql } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

const catalogList = (page: Page) => page.getByRole('list', { name: 'Catalog', exact: true });
/** A catalog row's item (each item is named by its row's heading). */
const entry = (page: Page, name: string): Locator => catalogList(page).getByRole('listitem', { name, exact: true });
const pendingList = (page: Page) => page.getByRole('list', { name: 'Pending requests', exact: true });
const pendingItem = (page: Page, email: string, rowName: string): Locator =>
  pendingList(page).getByRole('listitem').filter({ hasText: email }).filter({ hasText: rowName });
const inboxList = (page: Page) => page.getByRole('list', { name: 'Inbox', exact: true });
/** A kept screenshot of a moment of the flow (besides the ones every test leaves at its end). */
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(b.artifactsDir, `${name}.png`), fullPage: true });

/** An integrator's tools-token and its catalog row, renamed so the test can find it. */
async function row() {
  const tools = await adminTools(h);
  const name = `Acme deploys ${randomUUID().slice(0, 6)}`;
  await sql(h, `update catalog_items set name = ?, description = ?, application_guide = ? where id = ?`, [
    name,
    'Deploy notices from Acme in your inbox',
    'Say which services you own',
    tools.catalogRowId,
  ]);
  return { ...tools, name };
}

describe('catalog pages (browser)', () => {
  it('member applies, admin approves with a note, the member sees it live, and the claimed token publishes into their inbox', async () => {
    const tools = await row();
    const member = await newUser(h);

    // The member applies at /catalog.
    const page = b.page;
    await signIn(h, page, member);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await nav.getByRole('link', { name: 'Catalog', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Catalog');
    const mine = entry(page, tools.name);
    await expect(mine).toBeVisible();
    await expect(mine).toContainText('Deploy notices from Acme in your inbox');
    await expect(mine).toContainText('needs an administrator’s approval');
    await expectAxeClean(b, 'catalog before applying');
    await mine.getByLabel('Note (optional)', { exact: true }).fill('I own the deploy pipeline');
    await mine.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect(page.getByRole('status')).toContainText(`Applied for ${tools.name}`);
    await expect(mine.locator('.my-status')).toContainText('Pending');
    await expect(mine.getByRole('button', { name: 'Withdraw', exact: true })).toBeVisible();
    await expect(mine.getByRole('button', { name: 'Apply', exact: true })).toHaveCount(0);
    await expect(page.getByRole('list', { name: 'My requests', exact: true })).toContainText(`${tools.name} · Pending`);
    await expectAxeClean(b, 'catalog pending');
    await shot(page, 'flow-1-catalog-pending');

    // The admin approves it with a note at /admin/requests, in their own browser.
    const adminCtx = await b.newContext();
    const adminPage = await adminCtx.newPage();
    await signIn(h, adminPage, tools.admin);
    await adminPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }).click();
    await expect(adminPage.getByRole('heading', { level: 1 })).toHaveText('Pending requests');
    const waiting = pendingItem(adminPage, member.email, tools.name);
    await expect(waiting).toBeVisible();
    await expect(waiting).toContainText('Their note: I own the deploy pipeline');
    // The admin was told of the request in their inbox.
    expect(
      await sql(h, `select title, target_url from notifications where user_id = ? and title = ?`, [tools.admin.userId, `${tools.name}: new access request`]),
    ).toEqual([{ title: `${tools.name}: new access request`, target_url: `${h.baseUrl}/admin/requests` }]);
    await expectAxeClean({ ...b, page: adminPage } as typeof b, 'pending requests');
    await waiting.getByLabel('Note', { exact: true }).fill('Welcome aboard');
    await shot(adminPage, 'flow-2-pending-requests');
    await waiting.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(adminPage.getByRole('status')).toContainText(`Approved: ${member.email} for ${tools.name}`);
    await expect(pendingItem(adminPage, member.email, tools.name)).toHaveCount(0);

    // The member's open page turns "Approved" with the reviewer's note (no reload).
    await expect(mine.locator('.my-status')).toContainText('Approved');
    await expect(mine).toContainText("Reviewer's note: Welcome aboard");
    await expect(mine.getByRole('button', { name: 'Withdraw', exact: true })).toHaveCount(0);
    await expectAxeClean(b, 'catalog approved');
    await shot(page, 'flow-3-catalog-approved');

    // The decision is in the member's inbox.
    await nav.getByRole('link', { name: 'Inbox', exact: true }).click();
    await expect(inboxList(page).getByRole('link', { name: `${tools.name}: request approved`, exact: true })).toBeVisible();
    await page.getByText('Live', { exact: true }).waitFor();

    // The tool claims the member's personal token with the row's tools-token and publishes: the
    // event appears in the member's open inbox, live.
    const claimed = await claim(h, tools.token, { email: member.email });
    expect(claimed.status, claimed.text).toBe(200);
    const title = `Deploy ${randomUUID().slice(0, 6)} finished`;
    const res = await publish(h, claimed.body.token, event(h, { event_type: `${tools.prefix}deploy.finished`, severity: 'success', title }));
    expect(res.status, res.text).toBe(202);
    await expect(inboxList(page).getByRole('link', { name: title, exact: true })).toBeVisible();
    await shot(page, 'flow-4-inbox-event');
    expect(cspViolations(b)).toEqual([]);
  });

  it('a member withdraws a pending request and may apply again; /admin/requests is refused with "Admins only"', async () => {
    const tools = await row();
    const member = await newUser(h);
    const page = b.page;
    await signIn(h, page, member);
    await page.goto('/catalog');
    const mine = entry(page, tools.name);
    await mine.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect(mine.locator('.my-status')).toContainText('Pending');
    await mine.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await expect(page.getByRole('status')).toContainText(`Withdrew the request for ${tools.name}`);
    await expect(mine.getByRole('button', { name: 'Apply', exact: true })).toBeVisible();
    await expect(page.getByRole('list', { name: 'My requests', exact: true })).toContainText(`${tools.name} · Withdrawn`);

    await page.goto('/admin/requests');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Admins only');
    await expect(pendingList(page)).toHaveCount(0);
    await expectAxeClean(b, 'requests admins only');
  });
});
