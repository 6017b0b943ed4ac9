// The item at `/inbox/<notificationId>` (the deep link nudges point at): everything the list shows
// plus labels, the sanitised markdown body as the event asks (collapsed / expanded / preview), the
// supplements ("Updates", oldest first), the action buttons, "Mark read" (read: "Mark unread") and, for an event, "Escalate
// to task" (TaskService.CreateTask as a private draft: SPEC keeps this available on every event, a
// closed one too). Live: an upsert of this item from the app's stream replaces it.
import { createClient } from '@connectrpc/connect';
import { useEffect, useState } from 'preact/hooks';
import type { InboxAction, InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { TaskService } from '../../gen/fluxdesk/work/v1/tasks_pb.js';
import { account, Code, ConnectError, errorText, inbox, transport } from './client.js';
import { itemClasses, Meta, Severity } from './item-parts.js';
import { lastInboxHref } from './inbox-search.js';
import { subscribe } from './live.js';
import { previewOf, renderMarkdown } from './markdown.js';
import { Link, Time, useToast } from './ui.js';
import { TASK_LIMITS } from '../../src/domain/tasks/tasks.limits.js';

export function ItemPage({ id }: { id: string }) {
  const [item, setItem] = useState<InboxItem | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState('');

  useEffect(() => {
    let gone = false;
    setItem(null);
    setMissing(false);
    setError('');
    const load = () =>
      inbox.getInboxItem({ notificationId: id }).then(
        (res) => !gone && res.item && setItem(res.item),
        (e) => {
          if (gone) return;
          if (e instanceof ConnectError && (e.code === Code.NotFound || e.code === Code.InvalidArgument)) setMissing(true);
          else setError(errorText(e));
        },
      );
    void load();
    const off = subscribe((e) => {
      if (e.kind === 'upsert' && e.item.notificationId === id) setItem(e.item);
      else if (e.kind === 'ready') void load();
    });
    return () => {
      gone = true;
      off();
    };
  }, [id]);

  useEffect(() => {
    document.title = item ? `${item.title} · fluxdesk` : 'fluxdesk';
  }, [item]);

  if (missing)
    return (
      <section class="item-page">
        <h1>Notification not found</h1>
        <p>There is no notification {id} in your inbox. It may belong to someone else, or the link is mistyped.</p>
        <p>
          <Link href={lastInboxHref()}>Back to the inbox</Link>
        </p>
      </section>
    );
  if (error)
    return (
      <p class="error" role="alert">
        Could not load the notification: {error}
      </p>
    );
  if (!item) return <p class="loading">Loading…</p>;
  return <ItemView item={item} onChange={setItem} />;
}

const tasks = createClient(TaskService, transport);

/** The draft task's text: the event's summary, a link back to this item and the source system's link. */
function escalationDescription(item: InboxItem): string {
  const parts = [item.summary, `From the inbox: ${location.origin}/inbox/${item.notificationId}`];
  if (item.externalUrl) parts.push(`Source: ${item.externalUrl}`);
  return parts.filter(Boolean).join('\n\n');
}

function ItemView({ item, onChange }: { item: InboxItem; onChange: (i: InboxItem) => void }) {
  const toast = useToast();
  const labels = Object.entries(item.labels);

  const markRead = async () => {
    try {
      const res = await inbox.markRead({ notificationId: item.notificationId });
      if (res.item) onChange(res.item);
    } catch (e) {
      toast(`Mark read failed: ${errorText(e)}`);
    }
  };

  const markUnread = async () => {
    try {
      await inbox.markUnread({ notificationIds: [item.notificationId] });
      onChange({ ...item, read: false, readAt: undefined } as InboxItem);
    } catch (e) {
      toast(`Mark unread failed: ${errorText(e)}`);
    }
  };

  const escalate = async () => {
    try {
      await tasks.createTask({ title: item.title.slice(0, TASK_LIMITS.titleMax), description: escalationDescription(item), asDraft: true });
      toast('Task draft created');
    } catch (e) {
      toast(`Escalate failed: ${errorText(e)}`);
    }
  };

  return (
    <article class={itemClasses(item, 'item-page')}>
      <p class="back">
        <Link href={lastInboxHref()}>← Inbox</Link>
      </p>
      <header>
        <Severity item={item} />
        <h1>{item.title}</h1>
      </header>
      {item.summary && <p class="summary">{item.summary}</p>}
      <Meta item={item} />
      {item.resolvedAt && (
        <p class="resolution">
          Resolved <Time at={item.resolvedAt} />
          {item.resolutionNote ? `: ${item.resolutionNote}` : ''}
        </p>
      )}
      {item.eventType && (
        <p class="event-type">
          Event type <code>{item.eventType}</code>
        </p>
      )}
      {item.externalUrl && /^https?:/i.test(item.externalUrl) && (
        <p>
          <a href={item.externalUrl} target="_blank" rel="noopener noreferrer">
            Open in the source system
          </a>
        </p>
      )}
      {labels.length > 0 && (
        <dl class="labels" aria-label="Labels">
          {labels.map(([k, v]) => (
            <div key={k} class="label">
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {item.markdownBody && <Body markdown={item.markdownBody} mode={item.markdownBodyRendering ?? 'collapsed'} />}
      {item.actions.length > 0 && (
        <div class="actions">
          {item.actions.map((a) => (
            <ActionButton key={a.index} item={item} action={a} />
          ))}
        </div>
      )}
      <div class="read-state">
        {item.read ? (
          <>
            <span class="is-read-text">
              Read <Time at={item.readAt} />
            </span>
            <button type="button" onClick={markUnread}>
              Mark unread
            </button>
          </>
        ) : (
          <button type="button" onClick={markRead}>
            Mark read
          </button>
        )}
        {item.deliveryId && (
          <button type="button" onClick={escalate}>
            Escalate to task
          </button>
        )}
      </div>
      {item.supplements.length > 0 && (
        <section class="supplements" aria-labelledby="updates-heading">
          <h2 id="updates-heading">Updates</h2>
          <ol aria-label="Updates">
            {item.supplements.map((s) => (
              <li key={s.id}>
                <Time at={s.createdAt} />
                <Markdown markdown={s.markdownBody} />
              </li>
            ))}
          </ol>
        </section>
      )}
    </article>
  );
}

function Markdown({ markdown }: { markdown: string }) {
  // renderMarkdown's output is sanitised (markdown.ts): no raw HTML, no images, safe links only.
  return <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(markdown) }} />;
}

function Body({ markdown, mode }: { markdown: string; mode: string }) {
  if (mode === 'expanded')
    return (
      <div class="body">
        <Markdown markdown={markdown} />
      </div>
    );
  return (
    <details class="body">
      <summary>{mode === 'preview' ? previewOf(markdown) : 'Details'}</summary>
      <Markdown markdown={markdown} />
    </details>
  );
}

function ActionButton({ item, action }: { item: InboxItem; action: InboxAction }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  if (action.kind === 'url') {
    if (!action.url || !/^https?:/i.test(action.url)) return null;
    return (
      <a class="action" href={action.url} target="_blank" rel="noopener noreferrer">
        {action.label}
      </a>
    );
  }
  if (action.kind !== 'webhook' || !item.deliveryId) return null;
  const click = async () => {
    setBusy(true);
    try {
      const res = await account.clickAction({ deliveryId: item.deliveryId!, actionIndex: action.index });
      toast(res.error || res.status === 0 ? `Callback failed: ${res.error ?? 'no answer'}` : `Callback answered ${res.status}`);
    } catch (e) {
      toast(`Callback failed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" class="action" onClick={click} disabled={busy} aria-busy={busy}>
      {action.label}
    </button>
  );
}
