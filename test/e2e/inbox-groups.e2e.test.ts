// Grouped repeats and "Mark all done" in a real browser: repeats of one token and event type are one
// row in the Inbox view ("3 items", the newest title), "Show 3 like this" lists them, "Mark read" reads them all, "Done all 3"
// takes them all to Done (the Done count grows by 3) and Undo brings them all back, j / k move over a
// collapsed group as one row and e acts on all of it, axe-core clean collapsed and expanded; the
// "Group repeats" toggle turns grouping off and on, stored as the user's preference group_inbox (off
// after a reload and in another browser context signed in as the same user, not for another user);
// "Mark all done"
// under a severity filter marks only the matching rows, calling again while the server says more
// remain, with its progress and a toast saying there is no Undo. System Chromium, headless.
import { randomUUID } from 'node:crypto';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const uniqueTitle = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;
const inboxList = (page: Page) => page.getByRole('list', { name: 'Inbox', exact: true });
/** The list's own rows (a group's members, listed inside its row, are not counted). */
const topRows = (page: Page) => inboxList(page).locator(':scope > li');
const topRow = (page: Page, title: string) => topRows(page).filter({ has: page.locator(':scope > article .item-title', { hasText: title }) });
const viewLink = (page: Page, view: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}\\b`) });
const lastToast = (page: Page) => page.locator('.toasts p').last();
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');
const groupToggle = (page: Page) => page.getByLabel('Group repeats');

/** Publishes one event per title, a second apart (oldest first), with the given fields. */
async function publishAll(t: TestToken, titles: string[], over: Record<string, unknown>): Promise<void> {
  for (const title of titles) {
    h.clock.advance(1000);
    const r = await publish(h, t.token, event(h, { title, ...over }));
    expect(r.status, r.text).toBe(202);
  }
}

/** The rows' states, comma-separated, in the order of the titles. */
async function statesOf(titles: string[]): Promise<string> {
  const found = await sql(`select title, state from notifications where title in (${titles.map(() => '?').join(', ')})`, titles);
  const by = new Map(found.map((r) => [r.title as string, r.state as string]));
  return titles.map((x) => by.get(x) ?? 'missing').join();
}

async function openInbox(t: TestToken, page: Page = b.page): Promise<Page> {
  await signIn(h, page, t.user);
  if (new URL(page.url()).pathname !== '/') await page.goto('/');
  await inboxList(page).waitFor({ state: 'attached' });
  await page.getByText('Live', { exact: true }).waitFor();
  return page;
}

describe('grouped repeats and Mark all done (browser)', () => {
  it('repeats are one row ("3 items", newest title); expanded lists all 3; "Done all 3" and e take all to Done, Undo / z bring all back; axe clean collapsed and expanded', async () => {
    const t = await newPersonalToken(h);
    const fails = [uniqueTitle('CI failed 1'), uniqueTitle('CI failed 2'), uniqueTitle('CI failed 3')];
    const deploy = uniqueTitle('Deploy done');
    await publishAll(t, [fails[0]!, fails[1]!], { event_type: 'personal.ci.failed' });
    await publishAll(t, [deploy], { event_type: 'personal.deploy.done' });
    await publishAll(t, [fails[2]!], { event_type: 'personal.ci.failed' });
    const page = await openInbox(t);

    // The group at its newest member's place, then the deploy.
    await expect(topRows(page)).toHaveCount(2);
    const group = topRow(page, fails[2]!);
    await expect(group).toContainText('3 items');
    await expect(group.getByRole('checkbox', { name: `Select 3 items: ${fails[2]}` })).toHaveCount(1);
    await expect(inboxList(page).getByRole('link', { name: fails[0]!, exact: true })).toHaveCount(0);
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 4 · 4 unread');
    await expect(viewLink(page, 'Done')).toHaveText('Done 0');
    await expectAxeClean(b, 'group collapsed');

    // Expanded: every member listed under it, newest first.
    const show = group.getByRole('button', { name: 'Show 3 like this', exact: true });
    await expect(show).toHaveAttribute('aria-expanded', 'false');
    await show.click();
    const hide = group.getByRole('button', { name: 'Hide 3 like this', exact: true });
    await expect(hide).toHaveAttribute('aria-expanded', 'true');
    const members = page.getByRole('list', { name: `3 items like ${fails[2]}`, exact: true });
    await expect(members.getByRole('listitem')).toHaveCount(3);
    expect(await members.locator('.item-title').allTextContents()).toEqual([fails[2], fails[1], fails[0]]);
    await expectAxeClean(b, 'group expanded');

    // "Mark read" on the group (its own buttons, before its members' rows): all three read; it turns "Mark unread".
    const groupButtons = group.locator('.triage-buttons').first();
    await groupButtons.getByRole('button', { name: 'Mark read', exact: true }).click();
    await expect(group.getByRole('button', { name: 'Mark read', exact: true })).toHaveCount(0);
    await expect(groupButtons.getByRole('button', { name: 'Mark unread', exact: true })).toHaveCount(1);
    await expect
      .poll(async () => (await sql('select count(*)::int as n from notifications where user_id = ? and read_at is not null', [t.user.userId]))[0].n)
      .toBe(3);
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 4 · 1 unread');

    // "Done all 3": every member leaves the Inbox view; the Done count grows by 3.
    await group.getByRole('button', { name: 'Done all 3', exact: true }).click();
    await expect(lastToast(page)).toContainText('Marked 3 done');
    await expect(topRows(page)).toHaveCount(1);
    await expect(topRow(page, deploy)).toHaveCount(1);
    await expect(viewLink(page, 'Done')).toHaveText('Done 3');
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 1 · 1 unread');
    await expect.poll(() => statesOf(fails)).toBe('done,done,done');
    await viewLink(page, 'Done').click();
    await page.waitForURL((u) => u.search === '?view=done');
    // Other views list items: three rows, no group.
    await expect(topRows(page)).toHaveCount(3);
    await expect(page.getByRole('button', { name: /like this$/ })).toHaveCount(0);
    await expect(groupToggle(page)).toHaveCount(0);
    await viewLink(page, 'Inbox').click();
    await page.waitForURL((u) => u.search === '');
    await expect(topRows(page)).toHaveCount(1);

    // z: the last action undone, all three back, one group again.
    await page.keyboard.press('z');
    await expect(lastToast(page)).toContainText('Undone');
    await expect(topRows(page)).toHaveCount(2);
    await expect(topRow(page, fails[2]!)).toContainText('3 items');
    await expect.poll(() => statesOf(fails)).toBe('inbox,inbox,inbox');
    await expect(viewLink(page, 'Done')).toHaveText('Done 0');

    // Keyboard: the undo put the focus on the group's row; a collapsed group is one row for j / k;
    // e on it marks all of it done, z undoes.
    await expect.poll(() => focusedText(page)).toBe(fails[2]);
    await page.keyboard.press('j');
    await expect.poll(() => focusedText(page)).toBe(deploy);
    await page.keyboard.press('k');
    await expect.poll(() => focusedText(page)).toBe(fails[2]);
    await page.keyboard.press('e');
    await expect(lastToast(page)).toContainText('Marked 3 done');
    await expect(topRows(page)).toHaveCount(1);
    await expect.poll(() => focusedText(page)).toBe(deploy);
    await expect.poll(() => statesOf(fails)).toBe('done,done,done');
    await page.keyboard.press('z');
    await expect(topRows(page)).toHaveCount(2);
    await expect.poll(() => statesOf(fails)).toBe('inbox,inbox,inbox');

    // A new repeat arriving live joins the group on top, as its newest.
    const fourth = uniqueTitle('CI failed 4');
    await publishAll(t, [fourth], { event_type: 'personal.ci.failed' });
    await expect(topRow(page, fourth)).toContainText('4 items');
    await expect(topRows(page)).toHaveCount(2);
  });

  it('the "Group repeats" toggle turns grouping off for the user (after a reload, in a new browser context; not for another user) and on again', async () => {
    const t = await newPersonalToken(h);
    const titles = [uniqueTitle('Disk 1'), uniqueTitle('Disk 2'), uniqueTitle('Disk 3')];
    await publishAll(t, titles, { event_type: 'personal.disk.full' });
    const page = await openInbox(t);
    await expect(groupToggle(page)).toBeChecked();
    await expect(topRows(page)).toHaveCount(1);

    const saved = page.waitForResponse((r) => r.url().endsWith('/fluxdesk.notifications.v1.NotificationSettingsService/SetPreferences'));
    await groupToggle(page).uncheck();
    expect((await saved).status()).toBe(200);
    await expect(topRows(page)).toHaveCount(3);
    expect(await inboxList(page).locator('.item-title').allTextContents()).toEqual([titles[2], titles[1], titles[0]]);
    await expect(page.getByRole('button', { name: /like this$/ })).toHaveCount(0);
    await expectAxeClean(b, 'grouping off');
    // Stored for the user, nowhere in the browser.
    await expect.poll(async () => (await sql('select group_inbox from nudge_preferences where user_id = ?', [t.user.userId]))[0]?.group_inbox).toBe(false);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('group')))).toEqual([]);

    await page.reload();
    await inboxList(page).waitFor({ state: 'attached' });
    await expect(groupToggle(page)).not.toBeChecked();
    await expect(topRows(page)).toHaveCount(3);

    // Another browser (a new context: no cookies, no storage) signed in as the same user: off too.
    const other = await openInbox(t, await (await b.newContext()).newPage());
    await expect(groupToggle(other)).not.toBeChecked();
    await expect(topRows(other)).toHaveCount(3);
    // Another user's inbox still groups.
    const u2 = await newPersonalToken(h);
    await publishAll(u2, [uniqueTitle('Disk 1'), uniqueTitle('Disk 2')], { event_type: 'personal.disk.full' });
    const theirs = await openInbox(u2, await (await b.newContext()).newPage());
    await expect(groupToggle(theirs)).toBeChecked();
    await expect(topRows(theirs)).toHaveCount(1);

    await groupToggle(page).check();
    await expect(topRows(page)).toHaveCount(1);
    await expect(topRow(page, titles[2]!)).toContainText('3 items');
    await expect.poll(async () => (await sql('select group_inbox from nudge_preferences where user_id = ?', [t.user.userId]))[0]?.group_inbox).toBe(true);
    await other.reload();
    await inboxList(other).waitFor({ state: 'attached' });
    await expect(groupToggle(other)).toBeChecked();
    await expect(topRows(other)).toHaveCount(1);
  });

  it('a "Group repeats" change that cannot be saved is put back, with a toast', async () => {
    const t = await newPersonalToken(h);
    const titles = [uniqueTitle('Cert 1'), uniqueTitle('Cert 2')];
    await publishAll(t, titles, { event_type: 'personal.cert.expiring' });
    const page = await openInbox(t);
    await expect(topRows(page)).toHaveCount(1);
    await page.route('**/fluxdesk.notifications.v1.NotificationSettingsService/SetPreferences', (route: Route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'unavailable', message: 'try again' }) }),
    );
    // A click (not uncheck(): the box is unchecked only until the answer puts it back).
    await groupToggle(page).click();
    await expect(lastToast(page)).toContainText('Could not save “Group repeats”: try again');
    await expect(groupToggle(page)).toBeChecked();
    await expect(topRows(page)).toHaveCount(1);
  });

  it('"Mark all done" under a severity filter: only the matching rows, again while more remain (progress shown), a toast with the count and no Undo', async () => {
    const t = await newPersonalToken(h);
    const critical = [uniqueTitle('DB down'), uniqueTitle('Queue stalled'), uniqueTitle('API 500s')];
    const info = [uniqueTitle('Report ready'), uniqueTitle('Backup done')];
    await publishAll(t, critical, { severity: 'critical', event_type: 'personal.crit.alert' });
    for (const [k, title] of info.entries()) await publishAll(t, [title], { severity: 'info', event_type: `personal.info.t${k}` });
    const page = await openInbox(t);
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 5 · 5 unread');

    // A view of more than one call's 1,000 rows is beyond the daily cap of a test user: the first
    // answer is stubbed to say 1,000 were marked and more remain; the second goes to the server,
    // held until the progress shows.
    const calls: unknown[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/fluxdesk.inbox.v1.InboxService/MarkAllDone', async (route: Route) => {
      calls.push(route.request().postDataJSON());
      if (calls.length === 1) {
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ updatedCount: 1000, more: true }) });
        return;
      }
      await held;
      await route.fulfill({ response: await route.fetch() });
    });

    await page.getByLabel('Severity').selectOption('critical');
    await expect(topRows(page)).toHaveCount(1);
    await expect(topRow(page, critical[2]!)).toContainText('3 items');
    await page.getByRole('button', { name: 'Mark all done', exact: true }).click();
    await expect(page.locator('.mark-progress')).toHaveText('Marked 1,000 done…');
    await expect(page.getByRole('button', { name: 'Mark all done', exact: true })).toBeDisabled();
    release();
    await expect(lastToast(page)).toHaveText('Marked 1,003 done (no Undo for Mark all done)');
    await expect(lastToast(page).getByRole('button')).toHaveCount(0);
    await expect(page.locator('.mark-progress')).toHaveCount(0);
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(c).toEqual({ view: 'inbox', severities: ['critical'] });

    await expect(topRows(page)).toHaveCount(0);
    await expect.poll(() => statesOf(critical)).toBe('done,done,done');
    expect(await statesOf(info)).toBe('inbox,inbox');
    await page.getByLabel('Severity').selectOption({ label: 'All' });
    await expect(topRows(page)).toHaveCount(2);
    await expect(viewLink(page, 'Done')).toHaveText('Done 3');
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 2 · 2 unread');
    // No "Mark all done" in Done.
    await viewLink(page, 'Done').click();
    await page.waitForURL((u) => u.search === '?view=done');
    await expect(page.getByRole('button', { name: 'Mark all done', exact: true })).toHaveCount(0);
  });
});
