// `/settings/notifications`: how the signed-in user is nudged (NotificationSettingsService): browser
// push (permission, service worker, subscription with the service's VAPID key), a chat destination
// (its stored URL shown only as url_hint), which severities nudge, done on resolution, "Group repeats"
// of the Inbox view, quiet hours (start, end, time zone, days; the server's violations shown at their
// fields) and "Sign out everywhere" (a plain form POST with the session's CSRF token). The two
// settings forms say what they saved in a status line and why they could not in an alert. Its own
// chunk: the inbox route does not ship it.
import { useEffect, useState } from 'preact/hooks';
import { ChatStyle, type Preferences } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { csrfToken, errorText } from './client.js';
import { notificationSettings as api } from './settings-clients.js';
import { Field, Link, useToast } from './ui.js';
import { SEVERITIES } from '../../src/domain/events/event.limits.js';
import { NUDGE_LIMITS } from '../../src/domain/nudges/nudges.limits.js';
import { draftOf, ISO_DAYS, knownZones, type QuietDraft, type QuietField, quietProblems, quietRequest, quietText } from './quiet-hours-form.js';
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
  const [doneOnResolution, setDoneOnResolution] = useState(false);
  const [groupInbox, setGroupInbox] = useState(true);
  const [busy, setBusy] = useState(false);
  /** The preferences form's outcome: what it saved (status line), why it could not (alert). */
  const [prefsSaved, setPrefsSaved] = useState('');
  const [prefsError, setPrefsError] = useState('');
  /** The quiet hours form: its fields, the server's violations by field, its outcome. */
  const [quiet, setQuiet] = useState<QuietDraft>(() => draftOf(undefined));
  const [quietErrors, setQuietErrors] = useState<Map<QuietField, string>>(new Map());
  const [quietSaved, setQuietSaved] = useState('');
  const [zones] = useState(knownZones);

  const show = (p: Preferences | undefined) => {
    if (!p) return;
    setPrefs(p);
    setSeverities([...p.pushSeverities]);
    setChatEnabled(p.chatEnabled);
    setDoneOnResolution(p.doneOnResolution ?? false);
    setGroupInbox(p.groupInbox ?? true);
    if (p.chatDestination) setStyle(p.chatDestination.style);
  };

  useEffect(() => {
    document.title = 'Notification settings · fluxdesk';
    api.getPreferences({}).then(
      (r) => {
        show(r.preferences);
        setQuiet(draftOf(r.preferences?.quietHours));
      },
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
    setPrefsSaved('');
    setPrefsError('');
    try {
      const r = await api.setPreferences({
        pushSeverities: SEVERITIES.filter((s) => severities.includes(s)),
        updatePushSeverities: true,
        chatEnabled,
        doneOnResolution,
        groupInbox,
      });
      show(r.preferences);
      setPrefsSaved('Preferences saved.');
    } catch (err) {
      setPrefsError(`Could not save preferences: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  const saveQuiet = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setQuietSaved('');
    setQuietErrors(new Map());
    try {
      const r = await api.setPreferences(quietRequest(quiet));
      // Only the stored preferences: unsaved changes in the other form stay.
      if (r.preferences) setPrefs(r.preferences);
      const q = r.preferences?.quietHours;
      setQuiet(draftOf(q, quiet.timeZone));
      setQuietSaved(q ? `Quiet hours saved: ${quietText(q)}.` : 'Quiet hours are off.');
    } catch (err) {
      setQuietErrors(quietProblems(err) ?? new Map([['form', errorText(err)]]));
    } finally {
      setBusy(false);
    }
  };

  const editQuiet = (patch: Partial<QuietDraft>) => {
    setQuiet((q) => ({ ...q, ...patch }));
    setQuietSaved('');
  };
  const toggleDay = (day: number, on: boolean) => editQuiet({ days: on ? [...quiet.days.filter((d) => d !== day), day] : quiet.days.filter((d) => d !== day) });
  /** The violation's line in the alert, for a field's aria-describedby. */
  const quietErrorId = (f: QuietField) => (quietErrors.has(f) ? `quiet-error-${f}` : undefined);
  const QUIET_LABELS: Record<QuietField, string> = { start: 'Start', end: 'End', time_zone: 'Time zone', days: 'Days', form: 'Quiet hours' };

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
        <form class="prefs-form" aria-labelledby="prefs-heading" onSubmit={savePrefs}>
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
          <div class="check">
            <input
              id="done-on-resolution"
              type="checkbox"
              checked={doneOnResolution}
              aria-describedby="done-on-resolution-note"
              onChange={(e) => setDoneOnResolution((e.target as HTMLInputElement).checked)}
            />
            <label for="done-on-resolution">Move items to Done when their sender resolves them</label>
          </div>
          <p id="done-on-resolution-note" class="hint">
            When the sender marks an item resolved, approved, rejected or withdrawn, it is marked read and moves to Done.
          </p>
          <div class="check">
            <input
              id="group-inbox"
              type="checkbox"
              checked={groupInbox}
              aria-describedby="group-inbox-note"
              onChange={(e) => setGroupInbox((e.target as HTMLInputElement).checked)}
            />
            <label for="group-inbox">Group repeats in the Inbox</label>
          </div>
          <p id="group-inbox-note" class="hint">
            A token’s items of one event type are one row in the Inbox view (“5 items”), in every browser you sign in with.
          </p>
          {prefsError && (
            <p class="error" role="alert">
              {prefsError}
            </p>
          )}
          <button type="submit" disabled={busy || !prefs}>
            Save preferences
          </button>
          <p class="form-status" role="status">
            {prefsSaved}
          </p>
        </form>
      </section>

      <section class="settings-block" aria-labelledby="quiet-heading">
        <h2 id="quiet-heading">Quiet hours</h2>
        <p id="quiet-note">
          During quiet hours only critical nudges go through; everything else still lands in your inbox, and one summary nudge says what arrived once they are
          over.
        </p>
        <p class="quiet-state">
          {prefs === null ? (error ? '' : 'Loading…') : prefs.quietHours ? `Quiet hours: ${quietText(prefs.quietHours)}.` : 'No quiet hours are set.'}
        </p>
        <form class="prefs-form quiet-form" aria-labelledby="quiet-heading" noValidate onSubmit={saveQuiet}>
          <div class="check">
            <input
              id="quiet-enabled"
              type="checkbox"
              checked={quiet.enabled}
              aria-describedby="quiet-note"
              onChange={(e) => editQuiet({ enabled: (e.target as HTMLInputElement).checked })}
            />
            <label for="quiet-enabled">Hold back nudges during quiet hours</label>
          </div>
          <fieldset disabled={!quiet.enabled}>
            <legend>Window</legend>
            <div class="quiet-times">
              <Field label="Start">
                {(id) => (
                  <input
                    id={id}
                    type="time"
                    value={quiet.start}
                    aria-invalid={quietErrors.has('start') ? 'true' : undefined}
                    aria-describedby={quietErrorId('start')}
                    onInput={(e) => editQuiet({ start: (e.target as HTMLInputElement).value })}
                  />
                )}
              </Field>
              <Field label="End">
                {(id) => (
                  <input
                    id={id}
                    type="time"
                    value={quiet.end}
                    aria-invalid={quietErrors.has('end') ? 'true' : undefined}
                    aria-describedby={['quiet-end-note', quietErrorId('end')].filter(Boolean).join(' ')}
                    onInput={(e) => editQuiet({ end: (e.target as HTMLInputElement).value })}
                  />
                )}
              </Field>
              <Field label="Time zone">
                {(id) => (
                  <input
                    id={id}
                    type="text"
                    list="quiet-zones"
                    autocomplete="off"
                    spellcheck={false}
                    maxLength={NUDGE_LIMITS.timeZoneMax}
                    placeholder="e.g. Europe/Berlin"
                    value={quiet.timeZone}
                    aria-invalid={quietErrors.has('time_zone') ? 'true' : undefined}
                    aria-describedby={quietErrorId('time_zone')}
                    onInput={(e) => editQuiet({ timeZone: (e.target as HTMLInputElement).value })}
                  />
                )}
              </Field>
              <datalist id="quiet-zones">
                {zones.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </div>
            <p id="quiet-end-note" class="hint">
              An end at or before the start runs into the next day: 22:00 to 07:00 is quiet overnight.
            </p>
            <fieldset class="quiet-days" aria-describedby={quietErrorId('days')}>
              <legend>Days it starts on (none checked: every day)</legend>
              {ISO_DAYS.map(({ day, name }) => (
                <div class="check" key={day}>
                  <input
                    id={`quiet-day-${day}`}
                    type="checkbox"
                    checked={quiet.days.includes(day)}
                    onChange={(e) => toggleDay(day, (e.target as HTMLInputElement).checked)}
                  />
                  <label for={`quiet-day-${day}`}>{name}</label>
                </div>
              ))}
            </fieldset>
          </fieldset>
          {quietErrors.size > 0 && (
            <div class="error" role="alert">
              <p>Could not save the quiet hours:</p>
              <ul>
                {[...quietErrors].map(([f, m]) => (
                  <li key={f} id={`quiet-error-${f}`}>
                    {f === 'form' ? m : `${QUIET_LABELS[f]}: ${m}`}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <button type="submit" disabled={busy || !prefs}>
            Save quiet hours
          </button>
          <p class="form-status" role="status">
            {quietSaved}
          </p>
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
