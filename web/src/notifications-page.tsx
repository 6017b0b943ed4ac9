// `/settings/notifications`: how the signed-in user is nudged (NotificationSettingsService): browser
// push (permission, service worker, subscription with the service's VAPID key), a chat destination
// (its stored URL shown only as url_hint), which severities nudge, and "Sign out everywhere" (a plain
// form POST with the session's CSRF token). Its own chunk: the inbox route does not ship it.
import { useEffect, useState } from 'preact/hooks';
import { ChatStyle, type Preferences } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { csrfToken, errorText } from './client.js';
import { notificationSettings as api } from './settings-clients.js';
import { Field, Link, useToast } from './ui.js';
import { SEVERITIES } from '../../src/domain/events/event.limits.js';
import { NUDGE_LIMITS } from '../../src/domain/nudges/nudges.limits.js';
import './admin.css';

type PushState = 'checking' | 'unsupported' | 'blocked' | 'off' | 'on' | 'working';

const PUSH_TEXT: Record<PushState, string> = {
  checking: 'Checking this browser…',
  unsupported: 'This browser does not support push notifications.',
  blocked: 'Notifications are blocked for this site in this browser. Allow them in the browser’s site settings, then try again.',
  off: 'Browser notifications are off in this browser.',
  on: 'Browser notifications are on in this browser.',
  working: 'Working…',
};

const pushSupported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** The VAPID public key (base64url, no padding) as the bytes pushManager.subscribe wants. */
function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64url.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** keys.p256dh / keys.auth of a subscription, base64url. */
function subscriptionKeys(sub: PushSubscription): { p256dh: string; auth: string } {
  const json = sub.toJSON();
  const enc = (name: PushEncryptionKeyName) => {
    const raw = sub.getKey(name);
    if (!raw) return '';
    let s = '';
    for (const b of new Uint8Array(raw)) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  return { p256dh: json.keys?.p256dh ?? enc('p256dh'), auth: json.keys?.auth ?? enc('auth') };
}

async function registration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register('/sw.js');
  return navigator.serviceWorker.ready;
}

export function NotificationsPage() {
  const toast = useToast();
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [error, setError] = useState('');
  const [push, setPush] = useState<PushState>('checking');
  const [url, setUrl] = useState('');
  const [style, setStyle] = useState<ChatStyle>(ChatStyle.SLACK);
  const [severities, setSeverities] = useState<string[]>([]);
  const [chatEnabled, setChatEnabled] = useState(true);
  const [busy, setBusy] = useState(false);

  const show = (p: Preferences | undefined) => {
    if (!p) return;
    setPrefs(p);
    setSeverities([...p.pushSeverities]);
    setChatEnabled(p.chatEnabled);
    if (p.chatDestination) setStyle(p.chatDestination.style);
  };

  useEffect(() => {
    document.title = 'Notification settings · fluxdesk';
    api.getPreferences({}).then(
      (r) => show(r.preferences),
      (e) => setError(errorText(e)),
    );
    void (async () => {
      if (!pushSupported()) return setPush('unsupported');
      if (Notification.permission === 'denied') return setPush('blocked');
      try {
        const reg = await navigator.serviceWorker.getRegistration('/');
        const sub = reg ? await reg.pushManager.getSubscription() : null;
        setPush(sub && Notification.permission === 'granted' ? 'on' : 'off');
      } catch {
        setPush('off');
      }
    })();
  }, []);

  const enablePush = async () => {
    setPush('working');
    try {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') {
        setPush(permission === 'denied' ? 'blocked' : 'off');
        return;
      }
      const reg = await registration();
      const { publicKey } = await api.getVapidPublicKey({});
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
      const res = await api.registerPushSubscription({ endpoint: sub.endpoint, ...subscriptionKeys(sub) });
      setPush('on');
      if (prefs) setPrefs({ ...prefs, pushSubscriptionCount: res.subscriptionCount });
      toast('Browser notifications enabled');
    } catch (e) {
      setPush('off');
      toast(`Could not enable browser notifications: ${errorText(e)}`);
    }
  };

  const disablePush = async () => {
    setPush('working');
    try {
      const reg = await navigator.serviceWorker.getRegistration('/');
      const sub = reg ? await reg.pushManager.getSubscription() : null;
      if (sub) {
        const res = await api.removePushSubscription({ endpoint: sub.endpoint });
        await sub.unsubscribe().catch(() => false);
        if (prefs) setPrefs({ ...prefs, pushSubscriptionCount: res.subscriptionCount });
      }
      setPush('off');
      toast('Browser notifications disabled');
    } catch (e) {
      setPush('on');
      toast(`Could not disable browser notifications: ${errorText(e)}`);
    }
  };

  const saveChat = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api.setChatDestination({ url: url.trim(), style });
      show(r.preferences);
      setUrl('');
      toast('Chat destination saved');
    } catch (err) {
      toast(`Could not save the chat destination: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  const clearChat = async () => {
    setBusy(true);
    try {
      show((await api.clearChatDestination({})).preferences);
      toast('Chat destination removed');
    } catch (err) {
      toast(`Could not remove the chat destination: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  const savePrefs = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api.setPreferences({ pushSeverities: SEVERITIES.filter((s) => severities.includes(s)), updatePushSeverities: true, chatEnabled });
      show(r.preferences);
      toast('Preferences saved');
    } catch (err) {
      toast(`Could not save preferences: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  const toggle = (s: string, on: boolean) => setSeverities((cur) => (on ? [...cur.filter((x) => x !== s), s] : cur.filter((x) => x !== s)));
  const dest = prefs?.chatDestination;

  return (
    <section class="settings" aria-labelledby="notifications-heading">
      <h1 id="notifications-heading">Notification settings</h1>
      <p>
        New events always land in your inbox. Here you choose where else you are nudged. Personal tokens are on the{' '}
        <Link href="/settings/integrations">Integrations</Link> page.
      </p>
      {error && (
        <p class="error" role="alert">
          Could not load your settings: {error}
        </p>
      )}

      <section class="settings-block" aria-labelledby="push-heading">
        <h2 id="push-heading">Browser notifications</h2>
        <p class="push-state" data-state={push}>
          {PUSH_TEXT[push]}
        </p>
        {prefs && (
          <p class="push-count">
            {prefs.pushSubscriptionCount === 1 ? '1 browser subscribed' : `${prefs.pushSubscriptionCount} browsers subscribed`} to your account.
          </p>
        )}
        {(push === 'off' || push === 'blocked') && (
          <button type="button" onClick={enablePush}>
            Enable browser notifications
          </button>
        )}
        {push === 'on' && (
          <button type="button" onClick={disablePush}>
            Disable
          </button>
        )}
      </section>

      <section class="settings-block" aria-labelledby="chat-heading">
        <h2 id="chat-heading">Chat destination</h2>
        <p class="chat-state">
          {/* Until the settings are loaded nothing is known: no "not set" that a set destination would replace. */}
          {prefs === null ? (
            error ? (
              ''
            ) : (
              'Loading…'
            )
          ) : dest ? (
            <>
              Nudges go to <code>{dest.urlHint}</code> ({dest.style === ChatStyle.FEISHU ? 'Feishu/Lark' : 'Slack'} style).
            </>
          ) : (
            'No chat destination is set.'
          )}
        </p>
        <form class="chat-form" onSubmit={saveChat}>
          <Field label="Chat webhook URL">
            {(id) => (
              <input
                id={id}
                type="url"
                required
                maxLength={NUDGE_LIMITS.receiverUrlMax}
                placeholder="https://hooks.slack.com/services/…"
                value={url}
                onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
              />
            )}
          </Field>
          <Field label="Chat style">
            {(id) => (
              <select id={id} value={String(style)} onChange={(e) => setStyle(Number((e.target as HTMLSelectElement).value) as ChatStyle)}>
                <option value={String(ChatStyle.SLACK)}>slack</option>
                <option value={String(ChatStyle.FEISHU)}>feishu</option>
              </select>
            )}
          </Field>
          <button type="submit" disabled={busy}>
            Save chat destination
          </button>
          {dest && (
            <button type="button" class="danger" disabled={busy} onClick={clearChat}>
              Remove chat destination
            </button>
          )}
        </form>
      </section>

      <section class="settings-block" aria-labelledby="prefs-heading">
        <h2 id="prefs-heading">Preferences</h2>
        <form class="prefs-form" onSubmit={savePrefs}>
          <fieldset>
            <legend>Severities that notify you</legend>
            {SEVERITIES.map((s) => (
              <div class="check" key={s}>
                <input id={`sev-${s}`} type="checkbox" checked={severities.includes(s)} onChange={(e) => toggle(s, (e.target as HTMLInputElement).checked)} />
                <label for={`sev-${s}`}>{s}</label>
              </div>
            ))}
          </fieldset>
          <div class="check">
            <input id="chat-enabled" type="checkbox" checked={chatEnabled} onChange={(e) => setChatEnabled((e.target as HTMLInputElement).checked)} />
            <label for="chat-enabled">Also send nudges to chat</label>
          </div>
          <button type="submit" disabled={busy || !prefs}>
            Save preferences
          </button>
        </form>
      </section>

      <section class="settings-block" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <p id="sign-out-everywhere-note">Ends your sessions on every browser and device.</p>
        <form method="post" action="/auth/logout-everywhere">
          <input type="hidden" name="csrf" value={csrfToken()} />
          <button type="submit" class="danger" aria-describedby="sign-out-everywhere-note">
            Sign out everywhere
          </button>
        </form>
      </section>
    </section>
  );
}
