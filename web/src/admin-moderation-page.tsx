// `/admin/moderation`: the admin's hold-for-forwarding queue (ModerationService). Events sent with
// the admin's moderation tokens wait here (no inbox row, no push); per entry the admin may edit the
// title, summary and body (EditHeldEvent), forward it to a user by email (ForwardHeldEvent: one
// notification for that user, the admin as actor) or dismiss it (DismissHeldEvent). The server
// decides who may call: admins only (`forbidden_admin_only`), and each admin sees the entries of
// the moderation tokens they own. Loaded as its own chunk.
import { useEffect, useState } from 'preact/hooks';
import { type HeldEvent, HeldEventStatus } from '../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { EVENT_LIMITS } from '../../src/domain/events/event.limits.js';
import { errorText } from './client.js';
import { AdminNav } from './admin-nav.js';
import { moderation } from './settings-clients.js';
import { Field, Time, useToast } from './ui.js';
import { MODERATION_LIMITS } from '../../src/domain/moderation/moderation.limits.js';
import { USER_LIMITS } from '../../src/domain/users/users.limits.js';

const STATUS_TEXT: Record<HeldEventStatus, string> = {
  [HeldEventStatus.UNSPECIFIED]: 'unknown',
  [HeldEventStatus.PENDING]: 'pending',
  [HeldEventStatus.FORWARDED]: 'forwarded',
  [HeldEventStatus.DISMISSED]: 'dismissed',
};

export function AdminModerationPage() {
  const [items, setItems] = useState<HeldEvent[] | null>(null);
  const [error, setError] = useState('');
  const [all, setAll] = useState(false);

  const load = async (everything = all) => {
    try {
      const res = await moderation.listHeldEvents({ all: everything, limit: MODERATION_LIMITS.listMax });
      setItems(res.items);
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    document.title = 'Moderation · fluxdesk';
  }, []);
  useEffect(() => {
    void load(all);
  }, [all]);

  return (
    <section class="admin moderation" aria-labelledby="moderation-heading">
      <AdminNav current="/admin/moderation" />
      <h1 id="moderation-heading">Moderation</h1>
      <p>Events from your moderation tokens wait here until you forward them to a person or dismiss them.</p>
      <div class="check">
        <input id="held-all" type="checkbox" checked={all} onChange={(e) => setAll((e.target as HTMLInputElement).checked)} />
        <label for="held-all">Also show forwarded and dismissed</label>
      </div>
      {error && (
        <p class="error" role="alert">
          Could not load the queue: {error}
        </p>
      )}
      {items === null && !error && <p class="loading">Loading…</p>}
      {items && items.length === 0 && <p class="empty">No held events.</p>}
      {items && items.length > 0 && (
        <ul class="held" aria-label="Held events">
          {items.map((it) => (
            <HeldItem key={it.entryId} item={it} onChanged={() => load()} />
          ))}
        </ul>
      )}
    </section>
  );
}

function HeldItem({ item, onChanged }: { item: HeldEvent; onChanged: () => Promise<void> }) {
  const toast = useToast();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(item.title);
  const [summary, setSummary] = useState(item.summary ?? '');
  const [body, setBody] = useState(item.markdownBody ?? '');
  const [email, setEmail] = useState(item.suggestedEmail ?? '');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const pending = item.status === HeldEventStatus.PENDING;
  const headingId = `held-${item.entryId}`;

  const run = async (done: string, f: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await f();
      toast(done);
      await onChanged();
    } catch (e) {
      toast(`${done.split(' ')[0]} failed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const save = (e: Event) => {
    e.preventDefault();
    void run('Saved changes', async () => {
      await moderation.editHeldEvent({
        entryId: item.entryId,
        title: title.trim() !== item.title ? title.trim() : undefined,
        summary: summary !== (item.summary ?? '') ? summary : undefined,
        markdownBody: body !== (item.markdownBody ?? '') ? body : undefined,
      });
      setEditing(false);
    });
  };
  const forward = (e: Event) => {
    e.preventDefault();
    const to = email.trim();
    void run(`Forwarded to ${to || 'the suggested recipient'}`, () => moderation.forwardHeldEvent({ entryId: item.entryId, email: to || undefined }));
  };
  const dismiss = () => void run('Dismissed', () => moderation.dismissHeldEvent({ entryId: item.entryId, reason: reason.trim() || undefined }));

  return (
    <li class={`held-item sev-${item.severity}`} aria-labelledby={headingId}>
      <h2 id={headingId}>{item.title}</h2>
      <p class="held-meta">
        <span class={`severity sev-${item.severity}`}>{item.severity}</span> · <span>{item.eventType}</span> · from token “{item.tokenLabel}” · received{' '}
        <Time at={item.receivedAt} />
        {item.fireCount > 1 && <> · Fired {item.fireCount} times</>}
        {item.edited && <> · edited</>} · <span class="status">{STATUS_TEXT[item.status]}</span>
      </p>
      {item.summary && <p class="summary">{item.summary}</p>}
      {item.suggestedEmail && (
        <p class="suggested">
          Suggested recipient: {item.suggestedEmail}
          {item.recipientDisplayHint ? ` (${item.recipientDisplayHint})` : ''}
        </p>
      )}
      {item.status === HeldEventStatus.FORWARDED && (
        <p class="forwarded">
          Forwarded to {item.forwardedToEmail} <Time at={item.forwardedAt} />
        </p>
      )}
      {item.status === HeldEventStatus.DISMISSED && (
        <p class="dismissed">
          Dismissed <Time at={item.dismissedAt} />
          {item.dismissReason ? `: ${item.dismissReason}` : ''}
        </p>
      )}
      {pending && !editing && (
        <button type="button" onClick={() => setEditing(true)}>
          Edit
        </button>
      )}
      {pending && editing && (
        <form class="held-edit" onSubmit={save}>
          <Field label="Title">
            {(id) => (
              <input
                id={id}
                type="text"
                required
                maxLength={EVENT_LIMITS.titleMax}
                value={title}
                onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
              />
            )}
          </Field>
          <Field label="Summary">
            {(id) => (
              <input
                id={id}
                type="text"
                maxLength={EVENT_LIMITS.summaryMax}
                value={summary}
                onInput={(e) => setSummary((e.target as HTMLInputElement).value)}
              />
            )}
          </Field>
          <Field label="Body (markdown)">
            {(id) => (
              <textarea
                id={id}
                rows={4}
                maxLength={EVENT_LIMITS.markdownBodyMax}
                value={body}
                onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
              />
            )}
          </Field>
          <button type="submit" disabled={busy}>
            Save changes
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      )}
      {pending && (
        <form class="held-forward" onSubmit={forward}>
          <Field label="Forward to (email)">
            {(id) => (
              <input id={id} type="email" maxLength={USER_LIMITS.emailMax} value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
            )}
          </Field>
          <button type="submit" disabled={busy}>
            Forward
          </button>
        </form>
      )}
      {pending && (
        <div class="held-dismiss">
          <Field label="Dismiss reason (optional)">
            {(id) => (
              <input
                id={id}
                type="text"
                maxLength={MODERATION_LIMITS.dismissReasonMax}
                value={reason}
                onInput={(e) => setReason((e.target as HTMLInputElement).value)}
              />
            )}
          </Field>
          <button type="button" class="danger" disabled={busy} onClick={dismiss}>
            Dismiss
          </button>
        </div>
      )}
    </li>
  );
}
