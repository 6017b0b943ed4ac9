// The inbox in a real browser: sign-in by login link, a REST publish
// appearing live in the list named "Inbox" (latency measured and printed), a repeat updating the
// fire count in place, resolve and supplements shown, the deep link, a webhook action click showing
// the real local receiver's status (the receiver verifies the callback signature), url actions in a
// new tab, mark read / mark all read, the filters, and axe-core clean. System Chromium, headless.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@connectrpc/connect';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../gen/fluxdesk/account/v1/account_pb.js';
import { cspViolations, expectAxeClean, reportBudget, signIn, useBrowser } from '../helpers/browser.js';
import { bearer, transportFor } from '../helpers/connect.js';
import { event, http as request, newPersonalToken, operator, publish, startHarness, type Harness, type TestToken } from '../helpers/harness.js';

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  signatureValid: boolean;
}

let h: Harness;
let receiver: http.Server;
let receiverPort: number;
const received: Received[] = [];
/** Receiver path -> the callback signing secret its sender's token holds. */
const secrets = new Map<string, string>();

beforeAll(async () => {
  // A receiver as an integrator writes one: HMAC-SHA256 of the raw body with the token's callback
  // secret, compared in constant time; 202 when it verifies, 401 when not.
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = secrets.get(req.url!);
      const sig = Buffer.from(String(req.headers['x-svc-signature'] ?? ''));
      const expected = secret ? Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`) : undefined;
      const signatureValid = !!expected && expected.length === sig.length && timingSafeEqual(expected, sig);
      received.push({ url: req.url!, headers: req.headers, raw, signatureValid });
      res.writeHead(signatureValid ? 202 : 401).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverPort = (receiver.address() as AddressInfo).port;
  h = await startHarness({ env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiverPort}` } });
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

const uniqueTitle = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;
const inboxList = (page: Page) => page.getByRole('list', { name: 'Inbox', exact: true });
const rowsTitled = (page: Page, title: string) =>
  inboxList(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: title, exact: true }) });

/** Signs the token's user in and waits for the inbox with its live stream in place. */
async function openInbox(t: TestToken): Promise<Page> {
  const page = b.page;
  await signIn(h, page, t.user);
  if (new URL(page.url()).pathname !== '/') await page.goto('/');
  await inboxList(page).waitFor({ state: 'attached' });
  await page.getByText('Live', { exact: true }).waitFor();
  return page;
}

async function published(t: TestToken, over: Record<string, unknown>): Promise<{ deliveryId: string; ev: Record<string, unknown> }> {
  const ev = event(h, over);
  const res = await publish(h, t.token, ev);
  expect(res.status, res.text).toBe(202);
  return { deliveryId: res.body.deliveryId, ev };
}

/** The notification id behind a row: its link's /inbox/<id>. */
async function notificationIdOf(page: Page, title: string): Promise<string> {
  const href = await inboxList(page).getByRole('link', { name: title, exact: true }).getAttribute('href');
  const m = /^\/inbox\/([0-9a-f-]{36})$/.exec(href ?? '');
  expect(m, `link of "${title}": ${href}`).not.toBeNull();
  return m![1]!;
}

/** Marks the document so a later check can tell it was not reloaded. */
const markDocument = (page: Page) => page.evaluate(() => ((window as any).__e2eDocument = 'same'));
const sameDocument = (page: Page) => page.evaluate(() => (window as any).__e2eDocument === 'same');

describe('inbox (browser)', () => {
  it('a REST publish appears live in the list "Inbox" (latency printed); a repeat updates "Fired 2 times" in place, no second row', async () => {
    const t = await newPersonalToken(h);
    const page = await openInbox(t);
    await markDocument(page);
    const title = uniqueTitle('Build failed on main');
    // The moment the row's link appears, taken in the page (same machine clock as this process).
    await page.evaluate((want) => {
      const w = window as any;
      w.__e2eSeenAt = 0;
      const check = () => {
        if (w.__e2eSeenAt) return;
        const links = document.querySelectorAll('ul[aria-label="Inbox"] a');
        for (const a of links) if (a.textContent === want) w.__e2eSeenAt = Date.now();
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    }, title);

    const sentAt = Date.now();
    const { ev } = await published(t, { title, external_status: 'firing' });
    await expect.poll(() => page.evaluate(() => (window as any).__e2eSeenAt as number), { timeout: 5000, interval: 25 }).toBeGreaterThan(0);
    const latency = (await page.evaluate(() => (window as any).__e2eSeenAt as number)) - sentAt;
    reportBudget('publish -> visible in the inbox list (REST publish to row in the DOM)', latency);
    expect(latency).toBeLessThan(5000);
    await expect(rowsTitled(page, title)).toHaveCount(1);
    await expect(rowsTitled(page, title)).toContainText('firing');
    expect(await sameDocument(page)).toBe(true);

    // The same event_id again: the row's fire count changes where it is; no second row.
    const repeat = await publish(h, t.token, { ...ev, occurred_at: new Date(h.clock.now().getTime() - 30_000).toISOString() });
    expect(repeat.status, repeat.text).toBe(200);
    await expect(rowsTitled(page, title)).toContainText('Fired 2 times');
    await expect(rowsTitled(page, title)).toHaveCount(1);
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(1);
    expect(await sameDocument(page)).toBe(true);
  });

  it('the deep link /inbox/<id> opens that item; resolve (chip "Resolved") and supplements (list "Updates", oldest first) arrive live', async () => {
    const t = await newPersonalToken(h);
    const page = await openInbox(t);
    const other = uniqueTitle('Disk almost full');
    const title = uniqueTitle('Deploy stuck');
    await published(t, { title: other });
    const { deliveryId } = await published(t, { title, severity: 'critical', labels: { env: 'prod' } });
    await rowsTitled(page, title).waitFor();
    const id = await notificationIdOf(page, title);

    // A real deep link: a fresh document at /inbox/<id>.
    await page.goto(`/inbox/${id}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
    await expect(page.getByText(other)).toHaveCount(0);
    await expect(page.getByText('critical', { exact: true }).first()).toBeVisible();
    await markDocument(page);

    const resolved = await request(h, 'POST', `/api/v1/events/${deliveryId}/resolve`, { token: t.token, body: { resolution_note: 'Rolled back' } });
    expect(resolved.status, resolved.text).toBe(200);
    await expect(page.getByText('Resolved', { exact: true })).toBeVisible();
    await expect(page.getByText(/Rolled back/)).toBeVisible();

    for (const text of ['First update: root cause found.', 'Second update: fixed.']) {
      const s = await request(h, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token: t.token, body: { markdown_body: text } });
      expect(s.status, s.text).toBe(201);
    }
    const updates = page.getByRole('list', { name: 'Updates' }).getByRole('listitem');
    await expect(updates).toHaveCount(2);
    await expect(updates.nth(0)).toContainText('First update: root cause found.');
    await expect(updates.nth(1)).toContainText('Second update: fixed.');
    expect(await sameDocument(page)).toBe(true);

    // An id that is not in this user's inbox.
    await page.goto(`/inbox/${randomUUID()}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification not found');
  });

  it('a webhook action click shows "Callback answered 202" from a real local receiver that verified the signature; a url action opens in a new tab', async () => {
    const t = await newPersonalToken(h);
    const { token: agentToken } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: t.user.email });
    const account = createClient(AccountService, transportFor(h, 'connect', [bearer(agentToken)]));
    const secret = (await account.listPersonalTokens({})).tokens.find((x) => x.tokenId === t.tokenId)!.callbackSecret;
    const path = `/approve/${randomUUID()}`;
    secrets.set(path, secret);

    const page = await openInbox(t);
    const title = uniqueTitle('Release waiting for approval');
    const { deliveryId, ev } = await published(t, {
      title,
      actions: [
        // A local receiver, accepted at publish time because EGRESS_ALLOW_HOSTS lists it.
        { label: 'Approve', action_type: 'webhook', webhook_url: `http://127.0.0.1:${receiverPort}${path}` },
        { label: 'Open runbook', action_type: 'url', url: 'https://runbooks.example.test/release' },
      ],
    });
    await inboxList(page).getByRole('link', { name: title, exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);

    const runbook = page.getByRole('link', { name: 'Open runbook', exact: true });
    await expect(runbook).toHaveAttribute('href', 'https://runbooks.example.test/release');
    await expect(runbook).toHaveAttribute('target', '_blank');
    expect((await runbook.getAttribute('rel'))?.split(/\s+/).sort()).toEqual(['noopener', 'noreferrer']);

    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('Callback answered 202');

    const got = received.filter((r) => r.url === path);
    expect(got).toHaveLength(1);
    expect(got[0]!.signatureValid).toBe(true);
    expect(got[0]!.headers['user-agent']).toBe('fluxdesk-Inbox-Callback/v2');
    expect(JSON.parse(got[0]!.raw.toString('utf8'))).toMatchObject({
      delivery_id: deliveryId,
      action_label: 'Approve',
      action_index: 0,
      event_type: ev.event_type,
      clicked_by: { email: t.user.email },
    });
  });

  it('"Escalate to task" on an event, a closed one too, creates a private task draft linking back to the item', async () => {
    const t = await newPersonalToken(h);
    const page = await openInbox(t);
    const title = uniqueTitle('Access request approved');
    await published(t, { title, external_status: 'approved', summary: 'Approved by the data owner' });
    await rowsTitled(page, title).waitFor();
    const id = await notificationIdOf(page, title);
    await page.goto(`/inbox/${id}`);
    await page.getByRole('button', { name: 'Escalate to task', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('Task draft created');
    const rows = (await h.svc.deps.orm.em
      .getConnection()
      .execute('select title, description, is_draft from tasks where creator_user_id = ?', [t.user.userId])) as Array<{
      title: string;
      description: string;
      is_draft: boolean;
    }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ title, is_draft: true });
    expect(rows[0]!.description).toContain('Approved by the data owner');
    expect(rows[0]!.description).toContain(`/inbox/${id}`);
  });

  it('mark read on the item, mark all read on the list; both persist across a reload', async () => {
    const t = await newPersonalToken(h);
    const titles = [uniqueTitle('Alpha'), uniqueTitle('Bravo'), uniqueTitle('Charlie')];
    // Three event types: three rows (repeats of one type would be one group in the Inbox view).
    for (const [k, title] of titles.entries()) await published(t, { title, event_type: `personal.mark.t${k}` });
    const page = await openInbox(t);
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(3);
    await expect(page.getByText('3 unread', { exact: true })).toBeVisible();

    await inboxList(page).getByRole('link', { name: titles[0]!, exact: true }).click();
    await page.getByRole('button', { name: 'Mark read', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Mark read', exact: true })).toHaveCount(0);
    await expect(page.getByText(/^Read\b/)).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(titles[0]!);
    await expect(page.getByText(/^Read\b/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Mark read', exact: true })).toHaveCount(0);

    await page.goto('/');
    await expect(page.getByText('2 unread', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Mark all read', exact: true }).click();
    await expect(page.getByText('0 unread', { exact: true })).toBeVisible();
    await page.reload();
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(3);
    await expect(page.getByText('0 unread', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Mark all read', exact: true })).toBeDisabled();
  });

  it('filters: the "Severity" select and the "Event type" input narrow the list; live updates keep to the filter', async () => {
    const t = await newPersonalToken(h);
    const crit = uniqueTitle('Database down');
    const info = uniqueTitle('Nightly report ready');
    await published(t, { title: crit, severity: 'critical', event_type: 'personal.db.down' });
    await published(t, { title: info, severity: 'info', event_type: 'personal.report.ready' });
    const page = await openInbox(t);
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(2);

    await page.getByLabel('Severity').selectOption('critical');
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(1);
    await expect(rowsTitled(page, crit)).toHaveCount(1);
    // Live updates respect the filter: a new info event stays out, a new critical one comes in.
    const liveInfo = uniqueTitle('Backup finished');
    const liveCrit = uniqueTitle('Queue stalled');
    await published(t, { title: liveInfo, severity: 'info', event_type: 'personal.backup.done' });
    await published(t, { title: liveCrit, severity: 'critical', event_type: 'personal.queue.stalled' });
    await expect(rowsTitled(page, liveCrit)).toHaveCount(1);
    await expect(rowsTitled(page, liveInfo)).toHaveCount(0);
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(2);

    await page.getByLabel('Severity').selectOption({ label: 'All' });
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(4);
    await page.getByLabel('Event type').fill('personal.report.ready');
    await page.getByLabel('Event type').press('Enter');
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(1);
    await expect(rowsTitled(page, info)).toHaveCount(1);
  });

  it('axe-core finds no serious or critical violation on / and /inbox/<id>; no Content-Security-Policy violation', async () => {
    const t = await newPersonalToken(h);
    const title = uniqueTitle('Certificate expires soon');
    const { deliveryId } = await published(t, {
      title,
      summary: 'The TLS certificate of api.example.test expires in 5 days.',
      severity: 'warn',
      external_status: 'firing',
      labels: { service: 'api', env: 'prod' },
      markdown_body: '## Steps\n\n1. Renew the certificate\n2. Deploy it\n\n`certbot renew`',
      markdown_body_rendering: 'expanded',
      actions: [{ label: 'Open runbook', action_type: 'url', url: 'https://runbooks.example.test/tls' }],
    });
    await request(h, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token: t.token, body: { markdown_body: 'Renewal scheduled.' } });
    await published(t, { title: uniqueTitle('All green'), severity: 'success', event_type: 'personal.checks.green' });
    const page = await openInbox(t);
    await expect(inboxList(page).getByRole('listitem')).toHaveCount(2);
    await expectAxeClean(b, 'inbox');

    await inboxList(page).getByRole('link', { name: title, exact: true }).click();
    await expect(page.getByRole('list', { name: 'Updates' })).toBeVisible();
    await expectAxeClean(b, 'item');
    expect(cspViolations(b)).toEqual([]);
  });
});
