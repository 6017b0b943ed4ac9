// The admin pages in a real browser: a member gets "Admins only" at /admin/*; an admin's
// hold-for-forwarding queue (/admin/moderation: a list named "Held events") with edit, forward to a
// user (who then has it in their own inbox, the admin as actor) and dismiss; token oversight
// (/admin/tokens: owner, label, kind, status, last use, never a value) with the emergency revoke,
// after which the token answers 401. axe-core clean on each page.
import { randomUUID } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModerationService } from '../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { cspViolations, expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { bearer, closeSessions, transportFor } from '../helpers/connect.js';
import { event, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

/** An admin with a moderation token (issued through ModerationService with the admin's agent token). */
async function moderationAdmin(): Promise<{ admin: TestUser; token: string; prefix: string }> {
  const admin = await newUser(h, 'admin');
  const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: admin.email });
  const mod = createClient(ModerationService, transportFor(h, 'connect', [bearer(agent.token)]));
  const out = await mod.issueModerationToken({ label: `Vendor desk ${randomUUID().slice(0, 6)}` });
  return { admin, token: out.tokenValue, prefix: out.allowedEventPrefix };
}

/** Publishes a held event (a moderation token's event, with a suggested recipient). */
async function hold(m: { token: string; prefix: string }, title: string, recipient: string): Promise<string> {
  const r = await publish(
    h,
    m.token,
    event(h, { event_type: `${m.prefix}ticket.escalated`, severity: 'critical', title, recipient: { type: 'email', value: recipient } }),
  );
  expect(r.status, r.text).toBe(202);
  return r.body.deliveryId as string;
}

const heldList = (page: Page) => page.getByRole('list', { name: 'Held events', exact: true });
const heldItem = (page: Page, title: string): Locator =>
  heldList(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: title, exact: true }) });
const tokenRow = (page: Page, label: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });

describe('admin pages (browser)', () => {
  it('a member gets "Admins only" at /admin/moderation and /admin/tokens, and no admin data', async () => {
    const member = await newUser(h);
    const page = b.page;
    await signIn(h, page, member);
    for (const path of ['/admin/moderation', '/admin/tokens']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Admins only');
      await expect(page.getByRole('list', { name: 'Held events' })).toHaveCount(0);
      await expect(page.getByRole('table')).toHaveCount(0);
    }
    // No "Admin" entry in the member's navigation.
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await expectAxeClean(b, 'admins only');
  });

  it('the admin edits a held event and forwards it to a user, who has it in their inbox; another is dismissed', async () => {
    const m = await moderationAdmin();
    const target = await newUser(h);
    const rawTitle = `Vendor ticket ${randomUUID().slice(0, 6)}`;
    const other = `Noise ${randomUUID().slice(0, 6)}`;
    await hold(m, rawTitle, target.email);
    await hold(m, other, target.email);
    // Held: nothing in anybody's inbox yet.
    expect(await sql(`select id from notifications where user_id in (?, ?)`, [target.userId, m.admin.userId])).toEqual([]);

    const page = b.page;
    await signIn(h, page, m.admin);
    await page.goto('/admin/moderation');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Moderation');
    const item = heldItem(page, rawTitle);
    await expect(item).toBeVisible();
    await expect(item).toContainText(/critical/i);
    await expect(item).toContainText(`Suggested recipient: ${target.email}`);
    await expect(item.getByLabel('Forward to (email)', { exact: true })).toHaveValue(target.email);
    await expectAxeClean(b, 'moderation queue');

    // Edit the title and summary.
    const edited = `Invoice needs your approval ${randomUUID().slice(0, 6)}`;
    await item.getByRole('button', { name: 'Edit', exact: true }).click();
    await item.getByLabel('Title', { exact: true }).fill(edited);
    await item.getByLabel('Summary', { exact: true }).fill('Checked by the admin');
    await item.getByRole('button', { name: 'Save changes', exact: true }).click();
    const editedItem = heldItem(page, edited);
    await expect(editedItem).toBeVisible();
    await expect(editedItem).toContainText('Checked by the admin');
    await expect(editedItem).toContainText('edited');

    // Forward to the user (typed, as the field allows another address than the suggestion).
    await editedItem.getByLabel('Forward to (email)', { exact: true }).fill(target.email);
    await editedItem.getByRole('button', { name: 'Forward', exact: true }).click();
    await expect(page.getByRole('status')).toContainText(`Forwarded to ${target.email}`);
    await expect(heldItem(page, edited)).toHaveCount(0);
    const notes = await sql(`select title, summary, actor_user_id from notifications where user_id = ?`, [target.userId]);
    expect(notes).toEqual([{ title: edited, summary: 'Checked by the admin', actor_user_id: m.admin.userId }]);

    // Dismiss the other one.
    await heldItem(page, other).getByRole('button', { name: 'Dismiss', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('Dismissed');
    await expect(heldItem(page, other)).toHaveCount(0);
    await page.getByLabel('Also show forwarded and dismissed', { exact: true }).check();
    await expect(heldItem(page, other)).toContainText(/dismissed/i);
    await expect(heldItem(page, edited)).toContainText(`Forwarded to ${target.email}`);
    expect(await sql(`select id from notifications where user_id = ? and title = ?`, [target.userId, other])).toEqual([]);

    // The target sees the forwarded event in their own inbox (their own browser).
    const ctx = await b.newContext();
    const theirs = await ctx.newPage();
    await signIn(h, theirs, target);
    if (new URL(theirs.url()).pathname !== '/') await theirs.goto('/');
    const inbox = theirs.getByRole('list', { name: 'Inbox', exact: true });
    await expect(inbox.getByRole('link', { name: edited, exact: true })).toBeVisible();
    await expect(inbox.getByRole('link', { name: other, exact: true })).toHaveCount(0);
    expect(cspViolations(b)).toEqual([]);
  });

  it('token oversight lists tokens without values; revoke (with a reason) makes the token answer 401', async () => {
    const owner = await newUser(h);
    const label = `Nightly ${randomUUID().slice(0, 6)}`;
    const t = await operator<{ tokenId: string; token: string }>(h, 'tokens.create_personal', { email: owner.email, label, daily_limit: 500 });
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    const admin = await newUser(h, 'admin');

    const page = b.page;
    await signIn(h, page, admin);
    await page.goto('/admin/moderation');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Tokens', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tokens');
    const row = tokenRow(page, label);
    await expect(row).toBeVisible();
    await expect(row).toContainText(owner.email);
    await expect(row).toContainText('personal');
    await expect(row).toContainText('active');
    await expect(row).toContainText('500');
    await expect(row).not.toContainText('Never');
    const [secret] = await sql(`select token_hash, display_prefix, callback_secret from inbound_tokens where id = ?`, [t.tokenId]);
    const html = await page.content();
    for (const v of [t.token, secret.token_hash, secret.display_prefix, secret.callback_secret]) expect(html).not.toContain(v);
    await expectAxeClean(b, 'token oversight');

    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await row.getByLabel('Reason (optional)', { exact: true }).fill('posted in a public channel');
    await row.getByRole('button', { name: 'Confirm revoke', exact: true }).click();
    await expect(page.getByRole('status')).toContainText(`Revoked “${label}”`);
    await expect(tokenRow(page, label)).toHaveCount(0);
    await page.getByLabel('Include revoked', { exact: true }).check();
    await expect(tokenRow(page, label)).toContainText('revoked');

    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('token_revoked');
    expect(
      await sql(`select summary from notifications where user_id = ? and title = ?`, [owner.userId, `Your token "${label}" was revoked by an admin`]),
    ).toEqual([{ summary: 'Reason: posted in a public channel' }]);
    expect(cspViolations(b)).toEqual([]);
  });
});
