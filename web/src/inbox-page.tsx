// The inbox at `/`: the caller's notifications newest first, live through the app's WatchInbox
// stream (an upsert replaces its row in place or inserts it in order; every `ready` re-lists),
// the unread count, "Mark all read" and filters by severity and event type.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { type Filters, upsert } from './inbox-list.js';
import { errorText, inbox } from './client.js';
import { itemClasses, Meta, Severity } from './item-parts.js';
import { type LiveState, onLiveState, subscribe } from './live.js';
import { Field, Link, useToast } from './ui.js';

/** The first page: a whole day of a busy inbox (500 rows renders well inside the 500 ms budget). */
const PAGE = 500;
/** ListInbox's largest page. */
const MAX_PAGE = 500;
const SEVERITY_OPTIONS = ['critical', 'warn', 'info', 'success'];

const listRequest = (f: Filters, limit: number, pageToken?: string) =>
  inbox.listInbox({ severities: f.severity ? [f.severity] : [], eventType: f.eventType || undefined, limit, pageToken });

let prefetched: ReturnType<typeof listRequest> | undefined;
/** Starts the first page's request at once (in parallel with GetViewer), for the first render of `/`. */
export function prefetchInbox(): void {
  prefetched = listRequest({ severity: '', eventType: '' }, PAGE);
  prefetched.catch(() => {}); // consumed (and its error handled) by the first list
}

export function InboxPage() {
  const toast = useToast();
  const [filters, setFilters] = useState<Filters>({ severity: '', eventType: '' });
  const [eventTypeDraft, setEventTypeDraft] = useState('');
  const [items, setItems] = useState<InboxItem[] | null>(null);
  const [unread, setUnread] = useState(0);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState('');
  const [live, setLive] = useState<LiveState>('connecting');
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  // Upserts seen while a list call is in flight, applied over its answer.
  const sinceList = useRef<InboxItem[] | null>(null);
  const listSeq = useRef(0);

  const shown = useRef(0);
  shown.current = items?.length ?? 0;

  /** (Re)lists from the top, as many rows as are shown now (a re-list after a reconnect keeps what "Load more" fetched). */
  const list = async (keepExtent = false) => {
    const seq = ++listSeq.current;
    const f = filtersRef.current;
    sinceList.current = [];
    const limit = keepExtent ? Math.min(MAX_PAGE, Math.max(PAGE, shown.current)) : PAGE;
    try {
      const first = prefetched;
      prefetched = undefined;
      const res = await (first && !keepExtent && !f.severity && !f.eventType ? first : listRequest(f, limit));
      if (seq !== listSeq.current) return;
      let fresh = res.items;
      for (const u of sinceList.current ?? []) fresh = upsert(fresh, u, f);
      sinceList.current = null;
      setItems(fresh);
      setUnread(res.unreadCount);
      setTotal(res.totalCount);
      setNext(res.nextPageToken);
      setError('');
    } catch (e) {
      if (seq === listSeq.current) setError(errorText(e));
    }
  };

  const more = async () => {
    if (!next) return;
    const f = filtersRef.current;
    try {
      const res = await listRequest(f, PAGE, next);
      setItems((cur) => {
        const have = new Set((cur ?? []).map((i) => i.notificationId));
        return [...(cur ?? []), ...res.items.filter((i) => !have.has(i.notificationId))];
      });
      setNext(res.nextPageToken);
    } catch (e) {
      toast(`Could not load more: ${errorText(e)}`);
    }
  };

  useEffect(() => {
    void list();
  }, [filters]);

  useEffect(() => {
    const offState = onLiveState(setLive);
    const off = subscribe((e) => {
      setUnread(e.unreadCount);
      if (e.kind === 'ready') void list(true);
      else if (e.kind === 'upsert') {
        sinceList.current?.push(e.item);
        setItems((cur) => {
          if (!cur) return cur;
          const nextItems = upsert(cur, e.item, filtersRef.current);
          if (nextItems.length > cur.length) setTotal((t) => t + 1);
          return nextItems;
        });
      }
    });
    return () => {
      off();
      offState();
    };
  }, []);

  const markAll = async () => {
    try {
      const res = await inbox.markAllRead({});
      toast(res.markedCount === 1 ? 'Marked 1 notification read' : `Marked ${res.markedCount} notifications read`);
      setItems((cur) => cur?.map((i) => (i.read ? i : ({ ...i, read: true } as InboxItem))) ?? cur);
      setUnread(0);
    } catch (e) {
      toast(`Mark all read failed: ${errorText(e)}`);
    }
  };

  const applyEventType = (e: Event) => {
    e.preventDefault();
    setFilters((f) => ({ ...f, eventType: eventTypeDraft.trim() }));
  };

  return (
    <section class="inbox" aria-labelledby="inbox-heading">
      <div class="inbox-head">
        <h1 id="inbox-heading">Inbox</h1>
        <p class="counts">
          <span class="unread-count">{unread} unread</span>
          <span class={`live live-${live}`}>{live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Reconnecting…'}</span>
        </p>
        <button type="button" onClick={markAll} disabled={unread === 0}>
          Mark all read
        </button>
      </div>
      <form class="filters" onSubmit={applyEventType}>
        <Field label="Severity">
          {(id) => (
            <select id={id} value={filters.severity} onChange={(e) => setFilters((f) => ({ ...f, severity: (e.target as HTMLSelectElement).value }))}>
              <option value="">All</option>
              {SEVERITY_OPTIONS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Event type">
          {(id) => (
            <input
              id={id}
              type="text"
              value={eventTypeDraft}
              maxLength={120}
              placeholder="e.g. ci.build.failed"
              onInput={(e) => setEventTypeDraft((e.target as HTMLInputElement).value)}
              onChange={(e) => setFilters((f) => ({ ...f, eventType: (e.target as HTMLInputElement).value.trim() }))}
            />
          )}
        </Field>
        <button type="submit">Filter</button>
      </form>
      {error && (
        <p class="error" role="alert">
          Could not load the inbox: {error}
        </p>
      )}
      {items === null && !error && <p class="loading">Loading…</p>}
      {items !== null && (
        <>
          <p class="total">{total === 1 ? '1 notification' : `${total} notifications`}</p>
          <ul class="items" aria-label="Inbox">
            {items.map((i) => (
              <InboxRow key={i.notificationId} item={i} />
            ))}
          </ul>
          {items.length === 0 && <p class="empty">Nothing here.</p>}
          {next && (
            <button type="button" class="more" onClick={more}>
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}

function InboxRow({ item }: { item: InboxItem }) {
  return (
    <li class={itemClasses(item, 'item')}>
      <article>
        <header class="item-head">
          <Severity item={item} />
          <Link class="item-title" href={`/inbox/${item.notificationId}`}>
            {item.title}
          </Link>
        </header>
        {item.summary && <p class="summary">{item.summary}</p>}
        <Meta item={item} />
      </article>
    </li>
  );
}
