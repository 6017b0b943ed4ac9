// The settings page's quiet hours, done on resolution and "Group repeats" in a real browser: quiet
// hours set overnight 22:00-07:00 in Europe/Berlin on Monday to Friday through the form (the time
// zone defaults to the browser's), kept after a reload, a zone the server does not know shown as its
// violation at the field (role=alert, nothing stored), then cleared; done on resolution turned on
// (a sender's resolving repeat then moves the row to Done) and grouping turned off on the settings
// page: the Inbox of a new browser context shows the repeats as single rows, its toggle off.
// axe-core clean. System Chromium, headless.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestUser } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const prefsRow = async (userId: string) =>
  (
    await sql(
      `select quiet_start::text, quiet_end::text, quiet_tz, quiet_days::text, done_on_resolution, group_inbox from nudge_preferences where user_id = ?`,
      [userId],
    )
  )[0];
const quietForm = (page: Page) => page.getByRole('form', { name: 'Quiet hours', exact: true });
const prefsForm = (page: Page) => page.getByRole('form', { name: 'Preferences', exact: true });
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const day = (page: Page, name: string) => quietForm(page).getByRole('checkbox', { name, exact: true });

async function openSettings(user: TestUser, page: Page = b.page): Promise<Page> {
  await signIn(h, page, user);
  await page.goto('/settings/notifications');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification settings');
  await expect(page.getByText('Loading…')).toHaveCount(0);
  return page;
}

describe('quiet hours on the settings page (browser)', () => {
  it('set overnight 22:00-07:00 Europe/Berlin Monday to Friday, kept after a reload; an unknown zone is refused at its field; cleared; axe clean', async () => {
    const t = await newPersonalToken(h);
    const page = await openSettings(t.user);
    const form = quietForm(page);
    await expect(page.getByText('No quiet hours are set.', { exact: true })).toBeVisible();
    const enabled = form.getByLabel('Hold back nudges during quiet hours');
    await expect(enabled).not.toBeChecked();
    // The explanation is the switch's description.
    const note = page.locator(`#${await enabled.getAttribute('aria-describedby')}`);
    await expect(note).toContainText('only critical nudges go through');
    await expect(note).toContainText('one summary nudge');
    // Off: the window's fields are disabled; the zone is the browser's.
    await expect(form.getByLabel('Start', { exact: true })).toBeDisabled();
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await expect(form.getByLabel('Time zone', { exact: true })).toHaveValue(browserZone);
    await expectAxeClean(b, 'notification settings, quiet hours off');

    await enabled.check();
    await form.getByLabel('Start', { exact: true }).fill('22:00');
    await form.getByLabel('End', { exact: true }).fill('07:00');
    await form.getByLabel('Time zone', { exact: true }).fill('Europe/Berlin');
    for (const d of WEEKDAYS) await day(page, d).check();
    await form.getByRole('button', { name: 'Save quiet hours', exact: true }).click();
    await expect(form.getByRole('status')).toHaveText('Quiet hours saved: 22:00–07:00 (until the next day), Europe/Berlin, starting Monday to Friday.');
    expect(await prefsRow(t.user.userId)).toMatchObject({
      quiet_start: '22:00:00',
      quiet_end: '07:00:00',
      quiet_tz: 'Europe/Berlin',
      quiet_days: '{1,2,3,4,5}',
    });
    await expectAxeClean(b, 'notification settings, quiet hours on');

    await page.reload();
    await expect(page.getByText('Quiet hours: 22:00–07:00 (until the next day), Europe/Berlin, starting Monday to Friday.', { exact: true })).toBeVisible();
    await expect(enabled).toBeChecked();
    await expect(form.getByLabel('Start', { exact: true })).toHaveValue('22:00');
    await expect(form.getByLabel('End', { exact: true })).toHaveValue('07:00');
    await expect(form.getByLabel('Time zone', { exact: true })).toHaveValue('Europe/Berlin');
    for (const d of WEEKDAYS) await expect(day(page, d)).toBeChecked();
    for (const d of ['Saturday', 'Sunday']) await expect(day(page, d)).not.toBeChecked();

    // A zone the server does not know: its violation at the field, in an alert; nothing stored.
    const zone = form.getByLabel('Time zone', { exact: true });
    await zone.fill('Mars/Olympus_Mons');
    await form.getByRole('button', { name: 'Save quiet hours', exact: true }).click();
    const alert = form.getByRole('alert');
    await expect(alert).toContainText('Time zone: must be an IANA time zone such as Europe/Berlin');
    await expect(zone).toHaveAttribute('aria-invalid', 'true');
    const described = await zone.getAttribute('aria-describedby');
    await expect(page.locator(`#${described}`)).toContainText('must be an IANA time zone');
    expect(await prefsRow(t.user.userId)).toMatchObject({ quiet_tz: 'Europe/Berlin' });
    await expectAxeClean(b, 'notification settings, quiet hours refused');
    await zone.fill('Europe/Berlin');

    // Cleared: off and saved.
    await enabled.uncheck();
    await form.getByRole('button', { name: 'Save quiet hours', exact: true }).click();
    await expect(form.getByRole('status')).toHaveText('Quiet hours are off.');
    await expect(alert).toHaveCount(0);
    expect(await prefsRow(t.user.userId)).toMatchObject({ quiet_start: null, quiet_end: null, quiet_tz: null, quiet_days: null });
    await page.reload();
    await expect(page.getByText('No quiet hours are set.', { exact: true })).toBeVisible();
    await expect(enabled).not.toBeChecked();
  });
});

describe('done on resolution and "Group repeats" on the settings page (browser)', () => {
  it('done on resolution on and grouping off: kept after a reload; the Inbox of a new browser context lists repeats singly; a resolving repeat moves its row to Done', async () => {
    const t = await newPersonalToken(h);
    const titles = [`Disk 1 ${randomUUID().slice(0, 8)}`, `Disk 2 ${randomUUID().slice(0, 8)}`];
    for (const title of titles) {
      h.clock.advance(1000);
      const r = await publish(h, t.token, event(h, { title, event_type: 'personal.disk.full' }));
      expect(r.status, r.text).toBe(202);
    }
    const page = await openSettings(t.user);
    const form = prefsForm(page);
    const done = form.getByRole('checkbox', { name: 'Move items to Done when their sender resolves them', exact: true });
    const group = form.getByRole('checkbox', { name: 'Group repeats in the Inbox', exact: true });
    await expect(done).not.toBeChecked();
    await expect(group).toBeChecked();
    await done.check();
    await group.uncheck();
    await form.getByRole('button', { name: 'Save preferences', exact: true }).click();
    await expect(form.getByRole('status')).toHaveText('Preferences saved.');
    expect(await prefsRow(t.user.userId)).toMatchObject({ done_on_resolution: true, group_inbox: false });
    await expectAxeClean(b, 'notification settings, preferences saved');
    await page.reload();
    await expect(done).toBeChecked();
    await expect(group).not.toBeChecked();

    // Another browser of the same user: the Inbox does not group.
    const other = await (await b.newContext()).newPage();
    await signIn(h, other, t.user);
    if (new URL(other.url()).pathname !== '/') await other.goto('/');
    const list = other.getByRole('list', { name: 'Inbox', exact: true });
    await list.waitFor({ state: 'attached' });
    await expect(other.getByLabel('Group repeats', { exact: true })).not.toBeChecked();
    await expect(list.locator(':scope > li')).toHaveCount(2);
    await expect(other.getByRole('button', { name: /like this$/ })).toHaveCount(0);

    // Done on resolution: the sender resolves a firing event by a repeat; its row goes to Done.
    const firing = event(h, { title: `Alert ${randomUUID().slice(0, 8)}`, external_status: 'firing', event_type: 'personal.alert' });
    expect((await publish(h, t.token, firing)).status).toBe(202);
    h.clock.advance(1000);
    const resolved = await publish(h, t.token, { ...firing, external_status: 'resolved' });
    expect(resolved.status, resolved.text).toBeLessThan(300);
    await expect
      .poll(
        async () =>
          (await sql('select state, read_at is not null as read from notifications where user_id = ? and title = ?', [t.user.userId, firing.title]))[0],
      )
      .toEqual({ state: 'done', read: true });
  });
});
