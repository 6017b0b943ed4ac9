// Self-service integrations in a real browser: create a personal
// token (Label, Note, Daily limit, "Create token"), its value and signing secret shown once (gone
// after a reload) and the value authenticating a REST publish; the Nudges select (the token's nudge
// threshold); disable / enable; rotate (a new value,
// "Old token valid until", the old one still valid in the overlap); delete (confirmed inline; the
// token then answers 401); axe-core clean.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, expectAxeClean, signIn, useBrowser } from '../helpers/browser.js';
import { event, newUser, publish, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

async function openIntegrations(): Promise<Page> {
  const page = b.page;
  await signIn(h, page, await newUser(h));
  await page.goto('/settings/integrations');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
  return page;
}

async function createToken(page: Page, label: string, limit?: string): Promise<{ value: string; secret: string }> {
  await page.getByLabel('Label', { exact: true }).fill(label);
  await page.getByLabel('Note', { exact: true }).fill('Publishes from the nightly pipeline');
  if (limit) await page.getByLabel('Daily limit', { exact: true }).selectOption(limit);
  await page.getByRole('button', { name: 'Create token', exact: true }).click();
  const shown = page.getByRole('region', { name: 'New token' });
  await expect(shown).toBeVisible();
  await expect(shown).toContainText(label);
  const value = await shown.getByLabel('Token value').inputValue();
  const secret = await shown.getByLabel('Signing secret').inputValue();
  return { value, secret };
}

const rowOf = (page: Page, label: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
const publishWith = async (token: string) => (await publish(h, token, event(h))).status;

describe('integrations page (browser)', () => {
  it('create: the value and signing secret are shown once (gone after a reload) and the value authenticates a publish', async () => {
    const page = await openIntegrations();
    await expect(page.getByLabel('Daily limit', { exact: true })).toHaveValue('200');
    const label = `CI ${randomUUID().slice(0, 6)}`;
    const { value, secret } = await createToken(page, label, '500');
    expect(value).toMatch(/^svc-in-pers-/);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const shown = page.getByRole('region', { name: 'New token' });
    await expect(shown).toContainText(/shown once/i);
    await expect(shown.getByRole('button', { name: 'Copy' })).toHaveCount(2);
    await expect(shown.getByLabel('Token value')).toHaveAttribute('readonly', '');
    await expect(rowOf(page, label)).toContainText('500');
    await expect(rowOf(page, label)).toContainText('active');
    await expect(rowOf(page, label)).toContainText('Never');
    await expect(rowOf(page, label)).toContainText('Publishes from the nightly pipeline');

    expect(await publishWith(value)).toBe(202);
    // last_used_at is written just after the request (infra/tokens/last-use.ts): reload once it is.
    await expect
      .poll(async () => (await sql('select count(*)::int as n from inbound_tokens where label = ? and last_used_at is not null', [label]))[0].n)
      .toBe(1);

    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
    await expect(rowOf(page, label)).toBeVisible();
    await expect(page.getByRole('region', { name: 'New token' })).toHaveCount(0);
    const html = await page.content();
    expect(html).not.toContain(value);
    expect(html).not.toContain(secret);
    // Last use is shown once the token has been used.
    await expect(rowOf(page, label)).not.toContainText('Never');
  });

  it('disable answers 401 for the token, enable brings it back', async () => {
    const page = await openIntegrations();
    const label = `Cron ${randomUUID().slice(0, 6)}`;
    const { value } = await createToken(page, label);
    await page.getByRole('button', { name: 'Done' }).click();

    await rowOf(page, label).getByRole('button', { name: 'Disable', exact: true }).click();
    await expect(rowOf(page, label)).toContainText('disabled');
    expect(await publishWith(value)).toBe(401);
    await rowOf(page, label).getByRole('button', { name: 'Enable', exact: true }).click();
    await expect(rowOf(page, label)).toContainText('active');
    expect(await publishWith(value)).toBe(202);
  });

  it("the Nudges select of a row sets that token's nudge threshold (All by default)", async () => {
    const page = await openIntegrations();
    const label = `Alerts ${randomUUID().slice(0, 6)}`;
    await createToken(page, label);
    await page.getByRole('button', { name: 'Done' }).click();
    const select = rowOf(page, label).getByLabel(`Nudges for ${label}`);
    await expect(select).toHaveValue('all');
    await select.selectOption('critical');
    await expect(page.getByText('Nudges set')).toBeVisible();
    await expect(select).toHaveValue('critical');
    const [row] = await sql('select nudge_threshold from inbound_tokens where label = ?', [label]);
    expect(row.nudge_threshold).toBe('critical');
  });

  it('rotate shows a new value once and "Old token valid until"; both values work in the overlap; delete (Confirm delete) makes the token answer 401', async () => {
    const page = await openIntegrations();
    const label = `Deploys ${randomUUID().slice(0, 6)}`;
    const first = await createToken(page, label);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('region', { name: 'New token' })).toHaveCount(0);

    await rowOf(page, label).getByRole('button', { name: 'Rotate', exact: true }).click();
    const shown = page.getByRole('region', { name: 'New token' });
    await expect(shown).toBeVisible();
    const rotated = await shown.getByLabel('Token value').inputValue();
    expect(rotated).toMatch(/^svc-in-pers-/);
    expect(rotated).not.toBe(first.value);
    expect(await shown.getByLabel('Signing secret').inputValue()).not.toBe(first.secret);
    await expect(shown).toContainText('Old token valid until');
    expect(await publishWith(rotated)).toBe(202);
    expect(await publishWith(first.value)).toBe(202);

    await rowOf(page, label).getByRole('button', { name: 'Delete', exact: true }).click();
    // Asked inline; nothing is deleted before the confirmation.
    expect(await publishWith(rotated)).toBe(202);
    await rowOf(page, label).getByRole('button', { name: 'Confirm delete', exact: true }).click();
    await expect(rowOf(page, label).getByRole('button', { name: 'Rotate', exact: true })).toHaveCount(0);
    expect(await publishWith(rotated)).toBe(401);
    expect(await publishWith(first.value)).toBe(401);
  });

  it('axe-core finds no serious or critical violation (with a new token shown); no Content-Security-Policy violation', async () => {
    const page = await openIntegrations();
    await expectAxeClean(b, 'integrations-empty');
    await createToken(page, `Axe ${randomUUID().slice(0, 6)}`);
    await expectAxeClean(b, 'integrations-new-token');
    expect(cspViolations(b)).toEqual([]);
  });
});
