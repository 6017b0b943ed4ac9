// Browser push and the notification settings page in a real browser: a push subscription registered
// and a real push delivered to the service worker, the chat destination and severity preferences,
// axe-core clean. Everything is real (Chromium, the page, the service worker, the server's encrypted,
// VAPID-signed Web Push) but the browser vendor's push service, unreachable offline: the page
// subscribes to a local endpoint with keys the test holds (stubPushManager), and the test decrypts
// what arrives there and hands it to the service worker over the DevTools Protocol, as Chromium does.
import { randomUUID } from 'node:crypto';
import type { CDPSession, Page } from 'playwright-core';
import { createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationSettingsService } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { expectAxeClean, cspViolations, signIn, useBrowser } from '../helpers/browser.js';
import { bearer, closeSessions, transportFor } from '../helpers/connect.js';
import { event, newPersonalToken, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../helpers/harness.js';
import { browserSubscription, startReceiver, until, type Receiver } from '../integration/nudges/receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50', NUDGE_SEND_TIMEOUT_MS: '5000' },
  });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const b = useBrowser(() => h.baseUrl);
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

type Sub = ReturnType<typeof browserSubscription>;

/**
 * The stand-in for the unreachable push service, on the page side: subscribe() answers with the
 * local endpoint and the test's keys (and records the applicationServerKey it was called with);
 * getSubscription() answers with it while subscribed; unsubscribe() forgets it.
 */
async function stubPushManager(page: Page, sub: Sub): Promise<void> {
  await page.addInitScript(
    ({ endpoint, p256dh, auth }) => {
      const bytes = (s: string) => {
        const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
        return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
      };
      const KEY = 'e2e-push-subscribed';
      const w = window as unknown as { __subscribeKeys: string[] };
      w.__subscribeKeys = [];
      const make = () => ({
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true },
        getKey: (name: string) => bytes(name === 'p256dh' ? p256dh : auth),
        toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
        unsubscribe: async () => {
          localStorage.removeItem(KEY);
          return true;
        },
      });
      PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
        const k = options?.applicationServerKey;
        const raw = k instanceof ArrayBuffer ? new Uint8Array(k) : ArrayBuffer.isView(k) ? new Uint8Array(k.buffer, k.byteOffset, k.byteLength) : undefined;
        w.__subscribeKeys.push(
          raw
            ? btoa(String.fromCharCode(...raw))
                .replace(/\+/g, '-')
                .replace(/\//g, '_')
                .replace(/=+$/, '')
            : String(k),
        );
        localStorage.setItem(KEY, '1');
        return make() as unknown as PushSubscription;
      };
      PushManager.prototype.getSubscription = async () => (localStorage.getItem(KEY) ? (make() as unknown as PushSubscription) : null);
    },
    { endpoint: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth },
  );
}

/** The DevTools side of the real browser: the service worker registration id of the app's origin. */
async function swRegistration(cdp: CDPSession, origin: string): Promise<string> {
  const regs = new Map<string, { scopeURL: string; isDeleted: boolean }>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
    for (const r of e.registrations) regs.set(r.registrationId, r);
  });
  await cdp.send('ServiceWorker.enable');
  return until('service worker registration', () => [...regs.entries()].find(([, r]) => !r.isDeleted && r.scopeURL === `${origin}/`)?.[0]);
}

/** The notifications the service worker shows with this tag (registration.getNotifications in the page). */
const shown = (page: Page, tag: string) =>
  page.evaluate(async (t) => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications({ tag: t })).map((n) => ({ title: n.title, tag: n.tag, url: (n.data as { url?: string } | null)?.url }));
  }, tag);

/** The toasts (one status region; each settings form has its own status line too). */
const toasts = (page: Page) => page.locator('.toasts');

async function openSettings(user: TestUser, sub?: Sub): Promise<Page> {
  const page = b.page;
  if (sub) await stubPushManager(page, sub);
  await signIn(h, page, user);
  await page.goto('/settings/notifications');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification settings');
  return page;
}

describe('browser push (real service worker, local push endpoint)', () => {
  it('enable registers the subscription with the VAPID key; a critical publish is pushed, decrypted and shown with tag = delivery id; the same tag replaces, another delivery (own tag) does not; disable removes it', async () => {
    const t = await newPersonalToken(h);
    const path = `/push/${randomUUID()}`;
    const sub = browserSubscription(`${rx.url}${path}`);
    const origin = new URL(h.baseUrl).origin;
    await b.context.grantPermissions(['notifications'], { origin });
    const page = await openSettings(t.user, sub);

    await expect(page.getByText('Browser notifications are off in this browser.')).toBeVisible();
    await page.getByRole('button', { name: 'Enable browser notifications', exact: true }).click();
    await expect(page.getByText('Browser notifications are on in this browser.')).toBeVisible();
    await expect(page.getByText('1 browser subscribed', { exact: false })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Disable', exact: true })).toBeVisible();

    // The page subscribed with the service's VAPID key and stored exactly the subscription.
    const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: t.user.email });
    const { publicKey } = await createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(agent.token)])).getVapidPublicKey({});
    const keys = await page.evaluate(() => (window as unknown as { __subscribeKeys: string[] }).__subscribeKeys);
    expect(keys).toEqual([publicKey]);
    expect(await sql(`select endpoint, p256dh, auth from push_subscriptions where user_id = ?`, [t.user.userId])).toEqual([
      { endpoint: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth },
    ]);

    // The real service worker of the page, seen through DevTools.
    const cdp = await b.context.newCDPSession(page);
    const registrationId = await swRegistration(cdp, origin);
    // A push is handled by an ACTIVE worker: a registration whose worker is still installing may drop it.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });

    // Server side: a critical event -> a real, encrypted, VAPID-signed Web Push to the local endpoint.
    const title = `Disk full ${randomUUID().slice(0, 6)}`;
    const r = await publish(h, t.token, event(h, { severity: 'critical', title }));
    expect(r.status, r.text).toBe(202);
    const deliveryId = r.body.deliveryId as string;
    const [hit] = await until('the push request', () => rx.hitsFor(path).length === 1 && rx.hitsFor(path));
    expect(hit!.headers['content-encoding']).toBe('aes128gcm');
    expect(hit!.headers.authorization).toMatch(new RegExp(`^vapid t=.+, k=${keys[0]}$`));
    const payload = sub.decrypt(hit!.body) as { title: string; severity: string; url: string; tag: string };
    expect(payload).toMatchObject({ title, severity: 'critical', tag: deliveryId });
    expect(payload.url).toMatch(/\/inbox\/[0-9a-f-]{36}$/);

    // Delivered to the real service worker as Chromium's push service would: it shows it with tag = the delivery id.
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(payload) });
    const first = await until('the notification', async () => {
      const n = await shown(page, deliveryId);
      return n.length > 0 && n;
    });
    expect(first).toEqual([{ title, tag: deliveryId, url: payload.url }]);

    // A second push with the same tag (the push service redelivering it, or a retried send) replaces it: still one.
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify({ ...payload, title: `${title} (again)` }) });
    const second = await until('the replaced notification', async () => {
      const n = await shown(page, deliveryId);
      return n.length === 1 && n[0]!.title === `${title} (again)` && n;
    });
    expect(second).toHaveLength(1);

    // Another delivery has its own tag: it is shown next to the first one, not in its place.
    const title2 = `Queue stuck ${randomUUID().slice(0, 6)}`;
    const r2 = await publish(h, t.token, event(h, { severity: 'critical', title: title2 }));
    expect(r2.status, r2.text).toBe(202);
    const [, hit2] = await until('the second push request', () => rx.hitsFor(path).length === 2 && rx.hitsFor(path));
    const payload2 = sub.decrypt(hit2!.body) as { tag: string };
    expect(payload2).toMatchObject({ title: title2, tag: r2.body.deliveryId });
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(payload2) });
    await until('the second notification', async () => (await shown(page, payload2.tag)).length === 1);
    expect(await shown(page, deliveryId)).toHaveLength(1);

    await expectAxeClean(b, 'notification settings (push on)');

    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await expect(page.getByText('Browser notifications are off in this browser.')).toBeVisible();
    await expect(page.getByText('0 browsers subscribed', { exact: false })).toBeVisible();
    expect(await sql(`select id from push_subscriptions where user_id = ?`, [t.user.userId])).toEqual([]);
    expect(cspViolations(b)).toEqual([]);
  });

  it('a denied permission subscribes nothing and says notifications are blocked', async () => {
    const user = await newUser(h);
    const sub = browserSubscription(`${rx.url}/push/${randomUUID()}`);
    const page = await openSettings(user, sub);
    // No permission granted in this context: headless Chromium answers the prompt with "denied"/"default".
    await page.getByRole('button', { name: 'Enable browser notifications', exact: true }).click();
    await expect(page.getByText(/Notifications are blocked|Browser notifications are off/)).toBeVisible();
    expect(await sql(`select id from push_subscriptions where user_id = ?`, [user.userId])).toEqual([]);
  });
});

describe('chat destination and preferences (browser)', () => {
  it('saves and removes a chat destination (only a hint of the URL shown back); saves severity preferences; bad URL refused with a toast; axe clean', async () => {
    const user = await newUser(h);
    const page = await openSettings(user);
    await expect(page.getByText('No chat destination is set.')).toBeVisible();
    // Defaults: critical and warn nudge.
    await expect(page.getByRole('checkbox', { name: 'critical', exact: true })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'critical', exact: true })).toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'warn', exact: true })).toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'info', exact: true })).not.toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'success', exact: true })).not.toBeChecked();
    await expectAxeClean(b, 'notification settings');

    // A plain-http URL outside the allowlist is refused by the server; nothing is stored.
    await page.getByLabel('Chat webhook URL', { exact: true }).fill('http://hooks.example.com/x');
    await page.getByRole('button', { name: 'Save chat destination', exact: true }).click();
    await expect(toasts(page)).toContainText('Could not save the chat destination');
    expect((await sql(`select chat_url from nudge_preferences where user_id = ?`, [user.userId]))[0]?.chat_url ?? null).toBeNull();

    const url = 'https://open.feishu.cn/open-apis/bot/v2/hook/abcd1234wxyz';
    await page.getByLabel('Chat webhook URL', { exact: true }).fill(url);
    await page.getByLabel('Chat style', { exact: true }).selectOption({ label: 'feishu' });
    await page.getByRole('button', { name: 'Save chat destination', exact: true }).click();
    await expect(toasts(page)).toContainText('Chat destination saved');
    await expect(page.getByText('Feishu/Lark style')).toBeVisible();
    expect(await page.content()).not.toContain(url);
    expect(await sql(`select chat_url, chat_style from nudge_preferences where user_id = ?`, [user.userId])).toEqual([{ chat_url: url, chat_style: 'feishu' }]);

    await page.getByRole('checkbox', { name: 'warn', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'info', exact: true }).check();
    await page.getByRole('button', { name: 'Save preferences', exact: true }).click();
    await expect(page.getByRole('form', { name: 'Preferences', exact: true }).getByRole('status')).toHaveText('Preferences saved.');
    await page.reload();
    await expect(page.getByText('Feishu/Lark style')).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'warn', exact: true })).not.toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'info', exact: true })).toBeChecked();
    expect((await sql(`select push_severities from nudge_preferences where user_id = ?`, [user.userId]))[0].push_severities.sort()).toEqual([
      'critical',
      'info',
    ]);

    await page.getByRole('button', { name: 'Remove chat destination', exact: true }).click();
    await expect(page.getByText('No chat destination is set.')).toBeVisible();
    expect((await sql(`select chat_url from nudge_preferences where user_id = ?`, [user.userId]))[0].chat_url).toBeNull();
    expect(cspViolations(b)).toEqual([]);
  });
});
