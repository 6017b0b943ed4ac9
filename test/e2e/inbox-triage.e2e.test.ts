// Inbox triage in a real browser: the views Inbox, Snoozed, Done and All (counts and unread counts in
// their links, the view in the address through reload and back, the list named "Inbox" on each,
// axe-core clean on each), the row buttons "Done", "Move to Inbox" and "Snooze" (presets in the
// browser's time zone, "This evening" only before 18:00 there, "Pick a time…") with a toast and its
// "Undo" (each action back where it was, checked in the database), rows moving between views live
// (done elsewhere, a woken snooze on top), keyboard triage (j, k, e, z, h, x with e, h and u, u
// toggling read with z and Undo, g d / g s / g i, not while typing) and the "Keyboard shortcuts"
// dialog. System Chromium, headless.
import { randomUUID } from 'node:crypto';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type Client, createClient } from '@connectrpc/connect';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxService } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { wakeSnoozedTask } from '../../src/domain/inbox/wake-snoozed-notifications.js';
import { withToken } from '../helpers/agents.js';
import { expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { bearer, transportFor } from '../helpers/connect.js';
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
const rows = (page: Page) => inboxList(page).getByRole('listitem');
const row = (page: Page, title: string) => rows(page).filter({ has: page.getByRole('link', { name: title, exact: true }) });
const viewLink = (page: Page, view: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}\\b`) });
/** The newest toast. */
const lastToast = (page: Page) => page.getByRole('status').locator('p').last();
const undoButton = (page: Page) => lastToast(page).getByRole('button', { name: 'Undo', exact: true });
/** The text of the focused element. */
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');
const titlesShown = (page: Page) => inboxList(page).locator('.item-title').allTextContents();

let typeSeq = 0;
/**
 * Publishes one event per title, a second apart (oldest first); the list shows them newest first.
 * Each of its own event type, so no two are repeats of one another (the Inbox view groups those).
 */
async function publishAll(t: TestToken, titles: string[]): Promise<void> {
  for (const title of titles) {
    h.clock.advance(1000);
    const r = await publish(h, t.token, event(h, { title, event_type: `personal.triage.t${++typeSeq}` }));
    expect(r.status, r.text).toBe(202);
  }
}

async function stateOf(title: string): Promise<{ state: string; snoozed_until: Date | null; read_at: Date | null }> {
  const found = await sql('select state, snoozed_until, read_at from notifications where title = ?', [title]);
  expect(found).toHaveLength(1);
  const r = found[0];
  const date = (v: unknown) => (v === null ? null : new Date(v as string));
  return { state: r.state, snoozed_until: date(r.snoozed_until), read_at: date(r.read_at) };
}

/** Signs the token's user in on `page` and waits for the inbox with its live stream in place. */
async function openInbox(t: TestToken, page: Page = b.page): Promise<Page> {
  await signIn(h, page, t.user);
  if (new URL(page.url()).pathname !== '/') await page.goto('/');
  await inboxList(page).waitFor({ state: 'attached' });
  await page.getByText('Live', { exact: true }).waitFor();
  return page;
}

/** A context whose browser runs in a fixed UTC offset, chosen so its wall clock now shows `hour` o'clock (give or take the minutes). */
async function contextAtLocalHour(hour: number): Promise<{ context: BrowserContext; offset: number }> {
  let offset = (hour - new Date().getUTCHours() + 24) % 24;
  if (offset > 14) offset -= 24;
  // Etc/GMT names have the sign reversed: Etc/GMT-5 is UTC+5.
  const timezoneId = offset === 0 ? 'Etc/UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  const context = await b.browser.newContext({ baseURL: h.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId });
  context.setDefaultTimeout(10_000);
  return { context, offset };
}

describe('inbox triage (browser)', () => {
  it('views Inbox, Snoozed, Done and All: counts in their links, the view in the address (reload, back), row buttons with toasts and "Undo", axe clean on each', async () => {
    const t = await newPersonalToken(h);
    const [a, bb, c] = [uniqueTitle('Alpha'), uniqueTitle('Bravo'), uniqueTitle('Charlie')];
    await publishAll(t, [a, bb, c]);
    const page = await openInbox(t);
    expect(await titlesShown(page)).toEqual([c, bb, a]);
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 3 · 3 unread');
    await expect(viewLink(page, 'Inbox')).toHaveAttribute('aria-current', 'page');

    // "Done" on a row: it leaves the Inbox; a toast with "Undo".
    await row(page, c).getByRole('button', { name: 'Done', exact: true }).click();
    await expect(row(page, c)).toHaveCount(0);
    await expect(lastToast(page)).toContainText('Marked done');
    await expect(undoButton(page)).toBeVisible();
    // "Snooze" on a row: a menu of presets; "Tomorrow".
    await row(page, bb).getByRole('button', { name: 'Snooze', exact: true }).click();
    const menu = page.getByRole('menu', { name: 'Snooze' });
    await expect(menu).toBeVisible();
    await expectAxeClean(b, 'snooze menu');
    await menu.getByRole('menuitem', { name: /^Tomorrow/ }).click();
    await expect(lastToast(page)).toContainText('Snoozed until');
    await expect(row(page, bb)).toHaveCount(0);
    expect(await titlesShown(page)).toEqual([a]);
    expect((await stateOf(c)).state).toBe('done');
    const snoozed = await stateOf(bb);
    expect(snoozed.state).toBe('snoozed');

    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 1 · 1 unread');
    await expect(viewLink(page, 'Snoozed')).toHaveText('Snoozed 1 · 1 unread');
    await expect(viewLink(page, 'Done')).toHaveText('Done 1');
    await expect(viewLink(page, 'All')).toHaveText('All 3 · 2 unread');
    await expectAxeClean(b, 'view inbox');

    // Snoozed: the row with its time, "Done", "Move to Inbox" and "Snooze".
    await viewLink(page, 'Snoozed').click();
    await page.waitForURL((u) => u.search === '?view=snoozed');
    await expect(viewLink(page, 'Snoozed')).toHaveAttribute('aria-current', 'page');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
    await expect(row(page, bb)).toContainText('Snoozed until');
    for (const name of ['Done', 'Move to Inbox', 'Snooze']) await expect(row(page, bb).getByRole('button', { name, exact: true })).toHaveCount(1);
    await expect(rows(page)).toHaveCount(1);
    await expectAxeClean(b, 'view snoozed');
    // "Move to Inbox" from Snoozed, then "Undo": snoozed again until the same time.
    await row(page, bb).getByRole('button', { name: 'Move to Inbox', exact: true }).click();
    await expect(rows(page)).toHaveCount(0);
    await expect(lastToast(page)).toContainText('Moved to Inbox');
    expect((await stateOf(bb)).state).toBe('inbox');
    await undoButton(page).click();
    await expect(row(page, bb)).toHaveCount(1);
    await expect(lastToast(page)).toContainText('Undone');
    await expect.poll(async () => (await stateOf(bb)).state).toBe('snoozed');
    expect((await stateOf(bb)).snoozed_until!.getTime()).toBe(snoozed.snoozed_until!.getTime());

    // Done: no "Done" button; the view survives a reload.
    await viewLink(page, 'Done').click();
    await page.waitForURL((u) => u.search === '?view=done');
    await expect(row(page, c)).toContainText('Done');
    await expect(row(page, c).getByRole('button', { name: 'Done', exact: true })).toHaveCount(0);
    await page.reload();
    await expect(viewLink(page, 'Done')).toHaveAttribute('aria-current', 'page');
    await expect(row(page, c)).toHaveCount(1);
    await expect(rows(page)).toHaveCount(1);
    await expectAxeClean(b, 'view done');
    // "Move to Inbox" from Done, then "Undo": done again.
    await row(page, c).getByRole('button', { name: 'Move to Inbox', exact: true }).click();
    await expect(rows(page)).toHaveCount(0);
    await expect(lastToast(page)).toContainText('Moved to Inbox');
    await expect.poll(async () => (await stateOf(c)).state).toBe('inbox');
    await undoButton(page).click();
    await expect(row(page, c)).toHaveCount(1);
    await expect.poll(async () => (await stateOf(c)).state).toBe('done');

    // All: every row, newest first.
    await viewLink(page, 'All').click();
    await page.waitForURL((u) => u.search === '?view=all');
    await expect(rows(page)).toHaveCount(3);
    expect(await titlesShown(page)).toEqual([c, bb, a]);
    await expectAxeClean(b, 'view all');

    // Back: Done (after the reload), then Snoozed.
    await page.goBack();
    await page.waitForURL((u) => u.search === '?view=done');
    await expect(viewLink(page, 'Done')).toHaveAttribute('aria-current', 'page');
    await expect(row(page, c)).toHaveCount(1);
    await page.goBack();
    await page.waitForURL((u) => u.search === '?view=snoozed');
    await expect(row(page, bb)).toHaveCount(1);
    await expect(rows(page)).toHaveCount(1);
  });

  it('rows move between views live: done elsewhere leaves the Inbox and enters Done; back to the Inbox leaves Done; a woken snooze arrives on top', async () => {
    const t = await newPersonalToken(h);
    const agent = await withToken(h, t.user, ['read:inbox', 'write:inbox']);
    const api: Client<typeof InboxService> = createClient(InboxService, transportFor(h, 'connect', [bearer(agent.token)]));
    const [a, bb, c] = [uniqueTitle('Older'), uniqueTitle('Middle'), uniqueTitle('Newer')];
    await publishAll(t, [a, bb, c]);
    const ids = Object.fromEntries((await sql('select id, title from notifications where user_id = ?', [t.user.userId])).map((r) => [r.title, r.id]));
    const page = await openInbox(t);
    expect(await titlesShown(page)).toEqual([c, bb, a]);

    await api.markDone({ notificationIds: [ids[bb]] });
    await expect(row(page, bb)).toHaveCount(0);
    await expect(viewLink(page, 'Done')).toHaveText('Done 1');
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 2 · 2 unread');

    await viewLink(page, 'Done').click();
    await expect(row(page, bb)).toHaveCount(1);
    await api.moveToInbox({ notificationIds: [ids[bb]] });
    await expect(rows(page)).toHaveCount(0);
    await expect(viewLink(page, 'Done')).toHaveText('Done 0');

    await viewLink(page, 'Inbox').click();
    await expect(rows(page)).toHaveCount(3);
    expect(await titlesShown(page)).toEqual([c, bb, a]);
    // The oldest row snoozed for a moment: it leaves; at its time the wake brings it back on top.
    await api.snooze({ notificationId: ids[a], until: timestampFromDate(new Date(h.clock.now().getTime() + 1000)) });
    await expect(row(page, a)).toHaveCount(0);
    await expect(viewLink(page, 'Snoozed')).toHaveText('Snoozed 1 · 1 unread');
    h.clock.advance(2000);
    await wakeSnoozedTask.run(h.svc.deps, h.clock.now());
    await expect(row(page, a)).toHaveCount(1);
    expect(await titlesShown(page)).toEqual([a, c, bb]);
    await expect(viewLink(page, 'Snoozed')).toHaveText('Snoozed 0');
    // The server's order agrees after a reload.
    await page.reload();
    await expect(rows(page)).toHaveCount(3);
    expect(await titlesShown(page)).toEqual([a, c, bb]);
  });

  it('keyboard triage: j / k move the focus, e done, z undo, h snooze with a preset, x selects and e acts on all selected, g d / g i, nothing while typing', async () => {
    const t = await newPersonalToken(h);
    const titles = [uniqueTitle('K1'), uniqueTitle('K2'), uniqueTitle('K3'), uniqueTitle('K4')];
    await publishAll(t, titles);
    const [t1, t2, t3, t4] = titles as [string, string, string, string];
    const page = await openInbox(t);
    expect(await titlesShown(page)).toEqual([t4, t3, t2, t1]);

    await page.keyboard.press('j');
    await expect.poll(() => focusedText(page)).toBe(t4);
    await expect(inboxList(page).locator('li.is-cursor')).toHaveText(new RegExp(t4));
    await page.keyboard.press('j');
    await expect.poll(() => focusedText(page)).toBe(t3);
    await page.keyboard.press('k');
    await expect.poll(() => focusedText(page)).toBe(t4);

    // e: done; the focus goes to the row that took its place.
    await page.keyboard.press('e');
    await expect(row(page, t4)).toHaveCount(0);
    await expect(lastToast(page)).toContainText('Marked done');
    await expect.poll(() => focusedText(page)).toBe(t3);
    await expect.poll(async () => (await stateOf(t4)).state).toBe('done');
    // z: undo; back in its place, focused.
    await page.keyboard.press('z');
    await expect(lastToast(page)).toContainText('Undone');
    await expect(row(page, t4)).toHaveCount(1);
    expect(await titlesShown(page)).toEqual([t4, t3, t2, t1]);
    await expect.poll(async () => (await stateOf(t4)).state).toBe('inbox');
    await expect.poll(() => focusedText(page)).toBe(t4);

    // h: the snooze menu, focus on its first item; the arrow keys move; Enter picks.
    await page.keyboard.press('h');
    const menu = page.getByRole('menu', { name: 'Snooze' });
    await expect(menu).toBeVisible();
    await expect.poll(() => focusedText(page)).toMatch(/^In 1 hour/);
    await page.keyboard.press('End');
    await expect.poll(() => focusedText(page)).toBe('Pick a time…');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => focusedText(page)).toMatch(/^Next week/);
    await page.keyboard.press('Enter');
    await expect(lastToast(page)).toContainText('Snoozed until');
    await expect(row(page, t4)).toHaveCount(0);
    await expect.poll(async () => (await stateOf(t4)).state).toBe('snoozed');
    const until = (await stateOf(t4)).snoozed_until!;
    expect(until.getTime() - Date.now()).toBeGreaterThan(0);
    expect(until.getTime() - Date.now()).toBeLessThanOrEqual(8 * 86_400_000);
    await expect.poll(() => focusedText(page)).toBe(t3);
    // Escape closes the menu without snoozing.
    await page.keyboard.press('h');
    await expect(menu).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(rows(page)).toHaveCount(3);

    // x selects (the checkbox and the selection bar follow); e marks every selected row done.
    await page.keyboard.press('x');
    await expect(row(page, t3).getByRole('checkbox')).toBeChecked();
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    const selection = page.getByRole('group', { name: '2 selected' });
    await expect(selection).toBeVisible();
    await page.keyboard.press('e');
    await expect(lastToast(page)).toContainText('Marked 2 done');
    expect(await titlesShown(page)).toEqual([t1]);
    await expect(selection).toHaveCount(0);
    await expect.poll(async () => [(await stateOf(t3)).state, (await stateOf(t2)).state].join()).toBe('done,done');
    await expect(viewLink(page, 'Done')).toHaveText('Done 2');
    // z undoes the last action: both back.
    await page.keyboard.press('z');
    await expect(rows(page)).toHaveCount(3);
    await expect.poll(async () => [(await stateOf(t3)).state, (await stateOf(t2)).state].join()).toBe('inbox,inbox');

    // g d, g i: the views.
    await page.keyboard.press('g');
    await page.keyboard.press('d');
    await page.waitForURL((u) => u.search === '?view=done');
    await expect(viewLink(page, 'Done')).toHaveAttribute('aria-current', 'page');
    await page.keyboard.press('g');
    await page.keyboard.press('s');
    await page.waitForURL((u) => u.search === '?view=snoozed');
    await expect(row(page, t4)).toHaveCount(1);
    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await page.waitForURL((u) => u.pathname === '/' && u.search === '');
    await expect(rows(page)).toHaveCount(3);

    // Typing in a field: the letters go to the field, not to the shortcuts.
    const field = page.getByLabel('Event type');
    await field.focus();
    await page.keyboard.type('jexhz');
    await expect(field).toHaveValue('jexhz');
    await expect(rows(page)).toHaveCount(3);
    await expect(page.getByRole('menu')).toHaveCount(0);
    expect((await stateOf(t3)).state).toBe('inbox');
  });

  it('x then h snoozes every selected row until one time (Undo brings them back); u toggles read (the row, the selection), z and Undo mark it back', async () => {
    const t = await newPersonalToken(h);
    const [s1, s2, s3] = [uniqueTitle('S1'), uniqueTitle('S2'), uniqueTitle('S3')];
    await publishAll(t, [s1, s2, s3]);
    const page = await openInbox(t);
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await expect(page.getByRole('group', { name: '2 selected' })).toBeVisible();
    await page.keyboard.press('h');
    const menu = page.getByRole('group', { name: '2 selected' }).getByRole('menu', { name: 'Snooze' });
    await expect(menu).toBeVisible();
    await menu.getByRole('menuitem', { name: /^Tomorrow/ }).click();
    await expect(lastToast(page)).toContainText('Snoozed 2 until');
    expect(await titlesShown(page)).toEqual([s2]);
    const [u3, u1] = [(await stateOf(s3)).snoozed_until!, (await stateOf(s1)).snoozed_until!];
    expect(u3.getTime()).toBe(u1.getTime());
    await expect(viewLink(page, 'Snoozed')).toHaveText('Snoozed 2 · 2 unread');

    await undoButton(page).click();
    await expect(rows(page)).toHaveCount(3);
    await expect.poll(async () => [(await stateOf(s3)).state, (await stateOf(s1)).state].join()).toBe('inbox,inbox');
    expect(await titlesShown(page)).toEqual([s3, s2, s1]);

    // u: the current row (s3, focused by the undo) is marked read; again: unread, the count back.
    const unreadCount = page.locator('.unread-count');
    await expect(unreadCount).toHaveText('3 unread');
    await expect.poll(() => focusedText(page)).toBe(s3);
    await page.keyboard.press('u');
    await expect(lastToast(page)).toContainText('Marked read');
    await expect(undoButton(page)).toBeVisible();
    await expect.poll(async () => (await stateOf(s3)).read_at).not.toBeNull();
    await expect(row(page, s3)).not.toContainText('Unread');
    await expect(row(page, s3).getByRole('button', { name: 'Mark unread', exact: true })).toHaveCount(1);
    await expect(unreadCount).toHaveText('2 unread');
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 3 · 2 unread');
    await page.keyboard.press('u');
    await expect(lastToast(page)).toContainText('Marked unread');
    await expect.poll(async () => (await stateOf(s3)).read_at).toBeNull();
    await expect(row(page, s3)).toContainText('Unread');
    await expect(unreadCount).toHaveText('3 unread');
    await expect(viewLink(page, 'Inbox')).toHaveText('Inbox 3 · 3 unread');

    // z after u: the mark read undone (unread again).
    await page.keyboard.press('u');
    await expect(lastToast(page)).toContainText('Marked read');
    await expect.poll(async () => (await stateOf(s3)).read_at).not.toBeNull();
    await page.keyboard.press('z');
    await expect(lastToast(page)).toContainText('Undone');
    await expect.poll(async () => (await stateOf(s3)).read_at).toBeNull();
    await expect(unreadCount).toHaveText('3 unread');
    await expect.poll(() => focusedText(page)).toBe(s3);

    // The row's button: "Mark read" on s2, its toast's Undo marks it unread again.
    await row(page, s2).getByRole('button', { name: 'Mark read', exact: true }).click();
    await expect(lastToast(page)).toContainText('Marked read');
    await expect.poll(async () => (await stateOf(s2)).read_at).not.toBeNull();
    await expect(row(page, s2).getByRole('button', { name: 'Mark unread', exact: true })).toHaveCount(1);
    await undoButton(page).click();
    await expect.poll(async () => (await stateOf(s2)).read_at).toBeNull();
    await expect(row(page, s2).getByRole('button', { name: 'Mark read', exact: true })).toHaveCount(1);

    // x then u: s2 read, s3 unread selected: u marks both read (one was unread), u again both unread, z reads them again.
    await row(page, s2).getByRole('button', { name: 'Mark read', exact: true }).click();
    await expect.poll(async () => (await stateOf(s2)).read_at).not.toBeNull();
    await row(page, s3).getByRole('link', { name: s3, exact: true }).focus();
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    const selection = page.getByRole('group', { name: '2 selected' });
    await expect(selection.getByRole('button', { name: 'Mark read', exact: true })).toBeVisible();
    await page.keyboard.press('u');
    await expect(lastToast(page)).toContainText('Marked read');
    await expect.poll(async () => [(await stateOf(s3)).read_at === null, (await stateOf(s2)).read_at === null].join()).toBe('false,false');
    await expect(selection.getByRole('button', { name: 'Mark unread', exact: true })).toBeVisible();
    await expect(unreadCount).toHaveText('1 unread');
    await page.keyboard.press('u');
    await expect(lastToast(page)).toContainText('Marked 2 unread');
    await expect.poll(async () => [(await stateOf(s3)).read_at === null, (await stateOf(s2)).read_at === null].join()).toBe('true,true');
    await expect(unreadCount).toHaveText('3 unread');
    await expect(viewLink(page, 'All')).toHaveText('All 3 · 3 unread');
    await expectAxeClean(b, 'read toggles with a selection');
    await page.keyboard.press('z');
    await expect(lastToast(page)).toContainText('Undone');
    await expect.poll(async () => [(await stateOf(s3)).read_at === null, (await stateOf(s2)).read_at === null].join()).toBe('false,false');
    await expect(unreadCount).toHaveText('1 unread');
    expect((await stateOf(s1)).read_at).toBeNull();
  });

  it('"?" opens the dialog "Keyboard shortcuts" (axe clean); Escape and "Close" close it; shortcuts wait while it is open', async () => {
    const t = await newPersonalToken(h);
    const title = uniqueTitle('Dialog');
    await publishAll(t, [title]);
    const page = await openInbox(t);
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    for (const text of [
      'Next / previous notification',
      'Undo the last triage action',
      'Go to Done',
      'Go to Snoozed',
      'Go to Inbox',
      'Search: focus the search box',
      'Show these shortcuts',
    ])
      await expect(dialog).toContainText(text);
    await expectAxeClean(b, 'shortcuts dialog');
    await page.keyboard.press('e');
    await expect(row(page, title)).toHaveCount(1);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    await page.getByRole('button', { name: 'Keyboard shortcuts', exact: true }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    expect((await stateOf(title)).state).toBe('inbox');
  });

  it('the snooze presets follow the browser time zone ("This evening" before 18:00 only, at 18:00 there); "Pick a time…" snoozes until the picked time', async () => {
    const t = await newPersonalToken(h);
    const [p1, p2, p3] = [uniqueTitle('Evening'), uniqueTitle('Picked'), uniqueTitle('Late')];
    await publishAll(t, [p1, p2, p3]);

    // Morning in the browser: "This evening" is offered and ends at 18:00 on its wall clock.
    const morning = await contextAtLocalHour(10);
    try {
      const page = await openInbox(t, await morning.context.newPage());
      await row(page, p1).getByRole('button', { name: 'Snooze', exact: true }).click();
      await page.getByRole('menuitem', { name: /^This evening/ }).click();
      await expect(lastToast(page)).toContainText('Snoozed until');
      await expect.poll(async () => (await stateOf(p1)).state).toBe('snoozed');
      const evening = (await stateOf(p1)).snoozed_until!;
      expect((evening.getUTCHours() + morning.offset + 24) % 24).toBe(18);
      expect(evening.getUTCMinutes()).toBe(0);

      // Pick a time: two days ahead at 14:30 on the browser's wall clock.
      await row(page, p2).getByRole('button', { name: 'Snooze', exact: true }).click();
      await page.getByRole('menuitem', { name: 'Pick a time…' }).click();
      const when = page.getByLabel('Snooze until');
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('datetime-local');
      const past = await page.evaluate(() => {
        const d = new Date(Date.now() - 86_400_000);
        const p = (n: number) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T10:00`;
      });
      await when.fill(past);
      await page.getByRole('button', { name: 'Set snooze', exact: true }).click();
      await expect(page.getByRole('alert')).toHaveText('Pick a time in the future.');
      const picked = await page.evaluate(() => {
        const d = new Date(Date.now() + 2 * 86_400_000);
        const p = (n: number) => String(n).padStart(2, '0');
        return {
          value: `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T14:30`,
          at: new Date(d.getFullYear(), d.getMonth(), d.getDate(), 14, 30).getTime(),
        };
      });
      await when.fill(picked.value);
      await page.getByRole('button', { name: 'Set snooze', exact: true }).click();
      // The row leaves when the answer is in, together with its toast (the newest).
      await expect(row(page, p2)).toHaveCount(0);
      await expect(lastToast(page)).toContainText('Snoozed until');
      await expect.poll(async () => (await stateOf(p2)).snoozed_until?.getTime()).toBe(picked.at);
      // Undo of a snooze: back to the Inbox.
      await undoButton(page).click();
      await expect(row(page, p2)).toHaveCount(1);
      await expect.poll(async () => (await stateOf(p2)).state).toBe('inbox');
    } finally {
      await morning.context.close();
    }

    // Evening in the browser: "This evening" is not offered.
    const night = await contextAtLocalHour(20);
    try {
      const page = await openInbox(t, await night.context.newPage());
      await row(page, p3).getByRole('button', { name: 'Snooze', exact: true }).click();
      const menu = page.getByRole('menu', { name: 'Snooze' });
      await expect(menu.getByRole('menuitem', { name: /^Tomorrow/ })).toBeVisible();
      await expect(menu.getByRole('menuitem', { name: /^This evening/ })).toHaveCount(0);
      await expect(menu.getByRole('menuitem')).toHaveCount(4);
    } finally {
      await night.context.close();
    }
  });
});
