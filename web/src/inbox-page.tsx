// The inbox at `/`: the caller's notifications newest first in four views (Inbox, Snoozed, Done,
// All: `?view=`, with each view's count and unread count), live through the app's WatchInbox stream
// (an upsert replaces its row, moves it to another view when its state changed, or inserts it at its
// place by listed_at; every `ready` re-lists), the unread count, "Mark all read", filters by severity
// and event type, and triage: per row "Done", "Move to Inbox", "Snooze" (a menu of presets or a
// picked time) and "Mark read" / "Mark unread", a selection, a toast with "Undo" after each action,
// and keyboard shortcuts (`?`; `u` toggles read). In the Inbox view, repeats (rows with the same
// group_key) collapse into one row ("Group repeats", on by default, the user's preference
// group_inbox: the same in every browser, read as the page loads) whose Done / Snooze / Mark read
// (Mark unread) act on all its loaded members; "Mark all done" moves the view's rows matching the
// filters to Done (no Undo).
// The search box (`/` focuses it) lists the current view with a query in the server's search
// language (ListInbox.query; `?q=` in the address, kept across views, reload and back / forward):
// a result line ("12 results", "100+ results"), "No matches", the server's reason for a query it
// cannot read next to the box (the list shown stays), "Mark all done" on the search's matches only,
// and live changes re-listing the search (only the server knows whether a new row matches).
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { INBOX_LIMITS, INBOX_VIEWS, type InboxView } from '../../src/domain/inbox/inbox.limits.js';
import { errorText, inbox } from './client.js';
import { type Counts, countsOf, type Filters, inView, knownStateOf, type KnownState, shiftCounts, upsert } from './inbox-list.js';
import { inboxHref, locationOf, markAllDoneLabel, queryProblem, rememberInboxHref, resultsText } from './inbox-search.js';
import { groupCountText, groupRows, type ListRow, moreLikeThisText, navKeys, rowIndex } from './inbox-groups.js';
import { prefetchGrouping, readGrouping, writeGrouping } from './inbox-grouping-pref.js';
import { itemClasses, Meta, Severity } from './item-parts.js';
import { type LiveState, onLiveState, subscribe } from './live.js';
import { ShortcutsDialog } from './shortcuts-dialog.js';
import { type SnoozeChoice, SnoozeMenu } from './snooze-menu.js';
import {
  browserTimeZone,
  chunks,
  commandOf,
  markAllDoneText,
  markAllProgressText,
  type Prior,
  readToggle,
  restorePlan,
  SEQUENCE_MS,
  type TriageKind,
  triageText,
} from './triage.js';
import { Field, formatTime, Link, navigate, onNavigate, Time, useDismissToast, useToast } from './ui.js';

/** The first page: a whole day of a busy inbox (500 rows renders well inside the 500 ms budget). */
const PAGE = 500;
/** ListInbox's largest page. */
const MAX_PAGE = 500;
const SEVERITY_OPTIONS = ['critical', 'warn', 'info', 'success'];
const VIEW_LABELS: Record<InboxView, string> = { inbox: 'Inbox', snoozed: 'Snoozed', done: 'Done', all: 'All' };
/** How long after a live change a search's list is asked for again (a burst of changes: one call). */
const SEARCH_RELIST_MS = 300;

const listRequest = (f: Filters, view: InboxView, q: string, limit: number, pageToken?: string) =>
  inbox.listInbox({ view, severities: f.severity ? [f.severity] : [], eventType: f.eventType || undefined, query: q || undefined, limit, pageToken });

let prefetched: { view: InboxView; q: string; res: ReturnType<typeof listRequest> } | undefined;
/** Starts the first page's request at once (in parallel with GetViewer), for the first render of `/`. */
export function prefetchInbox(): void {
  const { view, q } = locationOf(location.search);
  prefetched = { view, q, res: listRequest({ severity: '', eventType: '' }, view, q, PAGE) };
  prefetched.res.catch(() => {}); // consumed (and its error handled) by the first list
  prefetchGrouping();
}

/** The view and the search named in the address, following in-app navigation and back/forward. */
function useInboxLocation(): { view: InboxView; q: string } {
  const [at, setAt] = useState(() => locationOf(location.search));
  useEffect(() => {
    const sync = () => {
      const next = locationOf(location.search);
      setAt((cur) => (cur.view === next.view && cur.q === next.q ? cur : next));
    };
    const off = onNavigate(sync);
    window.addEventListener('popstate', sync);
    return () => {
      off();
      window.removeEventListener('popstate', sync);
    };
  }, []);
  return at;
}

const millis = (t: InboxItem['snoozedUntil']) => (t ? timestampDate(t).getTime() : undefined);

/** The row as it is after a triage action (what the server's upsert will say too). */
function withState(i: InboxItem, state: 'inbox' | 'snoozed' | 'done', until?: Date): InboxItem {
  return {
    ...i,
    state,
    snoozedUntil: state === 'snoozed' && until ? timestampFromDate(until) : undefined,
    doneAt: state === 'done' ? timestampFromDate(new Date()) : undefined,
    read: state === 'done' ? true : i.read,
  } as InboxItem;
}

/** A triage action that can be undone: the rows as they were before it, and its toast. */
interface Undoable {
  kind: TriageKind;
  before: InboxItem[];
  toast?: number;
}

/** Typing in a field: the shortcuts keep out of the way (a checkbox or a button is not typing). */
function isTyping(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  return t instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(t.type);
}

const rowSelector = (key: string) => `li[data-id="${CSS.escape(key)}"]`;
/** Moves the keyboard focus to a row (its own title link, not a group member's); false when the row is not on the page. */
function focusRow(key: string): boolean {
  const a = document.querySelector<HTMLElement>(`${rowSelector(key)} > article .item-title`);
  a?.focus();
  return !!a && document.activeElement === a;
}

/** A row key as a DOM id (a group's key holds a token id and an event type). */
const domId = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '_');

/** The views "Mark all done" works on (Done has nothing to mark). */
const MARK_ALL_VIEWS: readonly InboxView[] = ['inbox', 'snoozed', 'all'];

export function InboxPage() {
  const toast = useToast();
  const dismissToast = useDismissToast();
  const { view, q } = useInboxLocation();
  const [filters, setFilters] = useState<Filters>({ severity: '', eventType: '' });
  const [eventTypeDraft, setEventTypeDraft] = useState('');
  const [items, setItems] = useState<InboxItem[] | null>(null);
  const [unread, setUnread] = useState(0);
  const [total, setTotal] = useState(0);
  /** A search matched more than the server counts (total is then INBOX_LIMITS.searchCountMax). */
  const [capped, setCapped] = useState(false);
  /** The search box's text (the search itself is `q`, from the address). */
  const [draft, setDraft] = useState(q);
  /** The server's reason it could not read `q` (the rows shown are then the previous list's). */
  const [queryError, setQueryError] = useState('');
  /** The search the rows shown were listed with ('' = none). */
  const [listedQ, setListedQ] = useState<string | null>(null);
  const [counts, setCounts] = useState<Counts | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState('');
  const [live, setLive] = useState<LiveState>('connecting');
  /** The row the keyboard acts on (j / k move it; a focused row becomes it). */
  const [cursor, setCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  /** The open snooze menu: for which rows, shown at a row or at the selection bar. */
  const [menu, setMenu] = useState<{ ids: string[]; at: string } | null>(null);
  const [help, setHelp] = useState(false);
  /** "Group repeats" (the Inbox view only): the user's preference; null until read (the list waits for it). */
  const [grouping, setGrouping] = useState<boolean | null>(null);
  /** The last toggle's write (an older answer does not undo a newer choice). */
  const groupingSeq = useRef(0);
  /** The groups shown expanded (their row keys). */
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  /** "Mark all done" running: how many it marked so far. */
  const [marking, setMarking] = useState<number | null>(null);

  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const viewRef = useRef(view);
  viewRef.current = view;
  const queryRef = useRef(q);
  queryRef.current = q;
  const cappedRef = useRef(capped);
  cappedRef.current = capped;
  const searchRef = useRef<HTMLInputElement>(null);
  const relistTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  /** More pages follow the loaded rows: a row that goes below them is not added. */
  const moreRef = useRef(false);
  moreRef.current = !!next;
  // Upserts seen while a list call is in flight, applied over its answer.
  const sinceList = useRef<InboxItem[] | null>(null);
  const listSeq = useRef(0);
  const countsSeq = useRef(0);
  const countsTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  /** What the page last knew of every row it saw (any view): its counts move by it. */
  const known = useRef(new Map<string, KnownState>());
  /** Triage actions that can still be undone, the last one last (`z`). */
  const undoStack = useRef<Undoable[]>([]);
  /** The cursor row's index among the keyboard's rows, to land on its neighbour when it leaves the list. */
  const cursorAt = useRef(0);
  /** After a user's action removed the focused element: put the focus on the cursor row. */
  const wantFocus = useRef(false);
  /** A row to focus once it is on the page (an undo brought it back). */
  const focusTarget = useRef<string | null>(null);
  /** The row title that last had the focus, and its row key: a re-render that replaces it must not drop the focus to the page. */
  const focusedRow = useRef<{ key: string; el: HTMLElement } | null>(null);
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      const t = e.target;
      if (!(t instanceof HTMLElement) || !t.classList.contains('item-title')) return;
      const key = t.closest('li[data-id]')?.getAttribute('data-id');
      if (key) focusedRow.current = { key, el: t };
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);
  const pending = useRef(0);
  const gAt = useRef(0);
  const menuReturn = useRef<HTMLElement | null>(null);

  const shown = useRef(0);
  shown.current = items?.length ?? 0;

  /** The current view's and every view's counts, a moment after changes (one small ListInbox call). */
  const refreshCounts = () => {
    clearTimeout(countsTimer.current);
    countsTimer.current = setTimeout(async () => {
      const seq = ++countsSeq.current;
      const v = viewRef.current;
      const vq = queryRef.current;
      try {
        const res = await listRequest(filtersRef.current, v, vq, 1);
        if (seq !== countsSeq.current || v !== viewRef.current || vq !== queryRef.current) return;
        setCounts(countsOf(res.viewCounts));
        setTotal(res.totalCount);
        setCapped(res.totalCountCapped);
        setUnread(res.unreadCount);
      } catch {
        // The next change or re-list brings them.
      }
    }, 250);
  };

  /** (Re)lists from the top, as many rows as are shown now (a re-list after a reconnect keeps what "Load more" fetched). */
  const list = async (keepExtent = false) => {
    const seq = ++listSeq.current;
    const cseq = ++countsSeq.current;
    const f = filtersRef.current;
    const v = viewRef.current;
    const vq = queryRef.current;
    sinceList.current = [];
    const limit = keepExtent ? Math.min(MAX_PAGE, Math.max(PAGE, shown.current)) : PAGE;
    try {
      const first = prefetched;
      prefetched = undefined;
      const usePrefetched = first && first.view === v && first.q === vq && !keepExtent && !f.severity && !f.eventType;
      const res = await (usePrefetched ? first.res : listRequest(f, v, vq, limit));
      if (seq !== listSeq.current) return;
      for (const i of res.items) known.current.set(i.notificationId, knownStateOf(i));
      let fresh = res.items;
      for (const u of sinceList.current ?? []) {
        fresh = upsert(fresh, u, f, v, !!res.nextPageToken, !vq);
        known.current.set(u.notificationId, knownStateOf(u));
      }
      sinceList.current = null;
      setItems(fresh);
      setListedQ(vq);
      if (cseq === countsSeq.current) {
        setUnread(res.unreadCount);
        setTotal(res.totalCount);
        setCapped(res.totalCountCapped);
        setCounts(countsOf(res.viewCounts));
      }
      setNext(res.nextPageToken);
      setError('');
      setQueryError('');
    } catch (e) {
      if (seq !== listSeq.current) return;
      sinceList.current = null;
      // A query the server cannot read: its reason beside the box; the rows shown stay.
      const problem = queryProblem(e);
      if (problem !== undefined) setQueryError(problem);
      else setError(errorText(e));
    }
  };

  /** A search's list again a moment after a live change (whether a changed or new row matches is the server's to say). */
  const relistSearch = () => {
    clearTimeout(relistTimer.current);
    relistTimer.current = setTimeout(() => {
      if (queryRef.current) void list(true);
    }, SEARCH_RELIST_MS);
  };

  const more = async () => {
    if (!next) return;
    try {
      const res = await listRequest(filtersRef.current, viewRef.current, queryRef.current, PAGE, next);
      for (const i of res.items) known.current.set(i.notificationId, knownStateOf(i));
      setItems((cur) => {
        const have = new Set((cur ?? []).map((i) => i.notificationId));
        return [...(cur ?? []), ...res.items.filter((i) => !have.has(i.notificationId))];
      });
      setNext(res.nextPageToken);
    } catch (e) {
      toast(`Could not load more: ${errorText(e)}`);
    }
  };

  // The user's "Group repeats" (on when it cannot be read: the default).
  useEffect(() => {
    readGrouping().then(
      (on) => {
        if (groupingSeq.current === 0) setGrouping(on);
      },
      () => {
        if (groupingSeq.current === 0) setGrouping(true);
      },
    );
  }, []);

  const lastView = useRef<InboxView | null>(null);
  useEffect(() => {
    if (lastView.current !== view) {
      // Another view: its own rows, no cursor, selection or menu carried over.
      if (lastView.current !== null) setItems(null);
      lastView.current = view;
      setCursor(null);
      setSelected(new Set());
      setMenu(null);
      setExpanded(new Set());
    }
    document.title = view === 'inbox' ? 'Inbox · fluxdesk' : `${VIEW_LABELS[view]} · Inbox · fluxdesk`;
    rememberInboxHref(inboxHref(view, q));
    void list();
  }, [filters, view, q]);

  // Another search (typed, back / forward, a reload): the box shows it; the previous reason goes.
  useEffect(() => {
    setDraft(q);
    setQueryError('');
    setExpanded(new Set());
  }, [q]);

  useEffect(() => {
    const offState = onLiveState(setLive);
    const off = subscribe((e) => {
      setUnread(e.unreadCount);
      if (e.kind === 'ready') void list(true);
      else if (e.kind === 'upsert') {
        const item = e.item;
        sinceList.current?.push(item);
        known.current.set(item.notificationId, knownStateOf(item));
        // listed_at places it exactly (a woken snooze on top, a move back to the Inbox at its old place).
        // Under a search a row not listed is not added: the search is listed again instead.
        const searching = !!queryRef.current;
        setItems((cur) => cur && upsert(cur, item, filtersRef.current, viewRef.current, moreRef.current, !searching));
        if (searching) relistSearch();
        else refreshCounts();
      }
    });
    return () => {
      off();
      offState();
      clearTimeout(countsTimer.current);
      clearTimeout(relistTimer.current);
    };
  }, []);

  // The rows shown: in the Inbox view with "Group repeats", a group of repeats is one row.
  const groupsOn = view === 'inbox' && grouping !== false;
  const rows = useMemo(() => (items ? groupRows(items, groupsOn) : []), [items, groupsOn]);
  /** The keyboard's rows (j / k), the ids each acts on, and which row shows each notification. */
  const nav = useMemo(() => navKeys(rows, expanded), [rows, expanded]);
  const index = useMemo(() => rowIndex(rows, expanded), [rows, expanded]);
  /** The row that shows a row key or a notification id now (a member of a collapsed group: the group's row). */
  const visibleKey = (key: string): string | undefined => (index.ids.has(key) ? key : index.shownAt.get(key));

  // The cursor (a row key) stays on a row of the list: on the row now showing it (a group it joined,
  // the group it was in when collapsed), else, when its row left, on the row that took its place.
  let cursorId = cursor;
  if (items && cursorId !== null) {
    const shown = visibleKey(cursorId);
    if (shown !== undefined) {
      cursorId = shown;
      cursorAt.current = nav.indexOf(shown);
    } else cursorId = nav[Math.min(cursorAt.current, nav.length - 1)] ?? null;
  }
  useEffect(() => {
    if (cursorId !== cursor) setCursor(cursorId);
  }, [cursorId, cursor]);
  // Rows that left the list leave the selection.
  useEffect(() => {
    if (!items || selected.size === 0) return;
    const here = new Set(items.map((i) => i.notificationId));
    if ([...selected].some((id) => !here.has(id))) setSelected(new Set([...selected].filter((id) => here.has(id))));
  }, [items]);
  // After an action took away the focused element (its row left, a menu closed): focus on the cursor row.
  useEffect(() => {
    // A focused row's element replaced by a render (a live refresh, a group formed again): its row now.
    const was = focusedRow.current;
    if (was && !was.el.isConnected && (document.activeElement === null || document.activeElement === document.body)) {
      const row = visibleKey(was.key);
      focusedRow.current = null;
      if (row && focusRow(row)) return;
    }
    const target = focusTarget.current && visibleKey(focusTarget.current);
    if (target && focusRow(target)) {
      focusTarget.current = null;
      return;
    }
    if (!wantFocus.current) return;
    const active = document.activeElement;
    if (active && active !== document.body) {
      if (pending.current === 0) wantFocus.current = false;
      return;
    }
    if (cursorId && focusRow(cursorId) && pending.current === 0) wantFocus.current = false;
  });

  /** Applies this page's own change to its rows at once (the stream's upserts confirm it). */
  const applyLocal = (changed: InboxItem[]) => {
    const v = viewRef.current;
    for (const i of changed) {
      const before = known.current.get(i.notificationId);
      const after = knownStateOf(i);
      known.current.set(i.notificationId, after);
      if (!before) continue;
      setCounts((c) => c && shiftCounts(c, before, after));
      // The list's total moves too (the row matches the filters: it was or is in the list).
      const delta = (inView(after, v) ? 1 : 0) - (inView(before, v) ? 1 : 0);
      // A capped search's count is a floor, not a count to move (the server's next count says).
      if (delta !== 0 && !cappedRef.current) setTotal((t) => Math.max(0, t + delta));
    }
    setItems((cur) => cur && changed.reduce((acc, i) => upsert(acc, i, filtersRef.current, viewRef.current, moreRef.current), cur));
  };

  const rowsOf = (ids: readonly string[]): InboxItem[] => {
    const byId = new Map((itemsRef.current ?? []).map((i) => [i.notificationId, i]));
    return ids.map((id) => byId.get(id)).filter((i): i is InboxItem => !!i);
  };

  /** Snoozes the rows: the first call resolves the choice (a preset in this browser's time zone), the others get the same time. */
  const snoozeAll = async (ids: string[], choice: SnoozeChoice): Promise<Date> => {
    const first = await inbox.snooze(
      'preset' in choice
        ? { notificationId: ids[0]!, preset: choice.preset, timeZone: browserTimeZone() }
        : { notificationId: ids[0]!, until: timestampFromDate(choice.until) },
    );
    const until = first.snoozedUntil ? timestampDate(first.snoozedUntil) : 'until' in choice ? choice.until : new Date();
    for (const part of chunks(ids.slice(1), 8)) await Promise.all(part.map((id) => inbox.snooze({ notificationId: id, until: timestampFromDate(until) })));
    return until;
  };

  const triage = async (kind: TriageKind, ids: string[], choice?: SnoozeChoice) => {
    const rows = rowsOf(ids).filter((r) => (kind === 'done' ? r.state !== 'done' : kind === 'inbox' ? r.state !== 'inbox' : true));
    if (rows.length === 0) return;
    const rowIds = rows.map((r) => r.notificationId);
    wantFocus.current = true;
    pending.current++;
    setSelected((s) => (s.size === 0 ? s : new Set([...s].filter((id) => !rowIds.includes(id)))));
    try {
      let untilText: string | undefined;
      if (kind === 'done') {
        applyLocal(rows.map((r) => withState(r, 'done')));
        for (const part of chunks(rowIds)) await inbox.markDone({ notificationIds: part });
      } else if (kind === 'inbox') {
        applyLocal(rows.map((r) => withState(r, 'inbox')));
        for (const part of chunks(rowIds)) await inbox.moveToInbox({ notificationIds: part });
      } else {
        const until = await snoozeAll(rowIds, choice ?? { preset: 'tomorrow' });
        applyLocal(rows.map((r) => withState(r, 'snoozed', until)));
        untilText = formatTime(until);
      }
      const action: Undoable = { kind, before: rows };
      undoStack.current = [...undoStack.current.slice(-19), action];
      action.toast = toast(triageText(kind, rows.length, untilText), { label: 'Undo', run: () => void undo(action) });
    } catch (e) {
      toast(`${kind === 'done' ? 'Done' : kind === 'inbox' ? 'Move to Inbox' : 'Snooze'} failed: ${errorText(e)}`);
      void list(true);
    } finally {
      pending.current--;
      refreshCounts();
    }
  };

  /** Puts the rows of an action back where they were (the toast's "Undo", `z`). */
  const undo = async (action: Undoable) => {
    if (!undoStack.current.includes(action)) return;
    undoStack.current = undoStack.current.filter((a) => a !== action);
    if (action.toast) dismissToast(action.toast);
    const readMark = action.kind === 'read' || action.kind === 'unread';
    wantFocus.current = true;
    pending.current++;
    // Done marked them read; its undo leaves them read (the undo of a mark read is what marks unread).
    if (!readMark) applyLocal(action.before.map((r) => (action.kind === 'done' ? ({ ...r, read: true } as InboxItem) : r)));
    const back = action.before.find((r) => inView(r, viewRef.current));
    if (back) {
      setCursor(back.notificationId);
      focusTarget.current = back.notificationId;
    }
    try {
      if (readMark) {
        // The rows as they are now, read or unread again (undo of mark read: MarkUnread; of mark unread: MarkRead).
        const now = new Map(rowsOf(action.before.map((r) => r.notificationId)).map((r) => [r.notificationId, r]));
        await writeRead(
          action.before.map((r) => now.get(r.notificationId) ?? r),
          action.kind === 'unread',
        );
      } else {
        const prior: Prior[] = action.before.map((r) => ({ id: r.notificationId, state: r.state, snoozedUntil: millis(r.snoozedUntil) }));
        const plan = restorePlan(prior, Date.now());
        for (const part of chunks(plan.toInbox)) await inbox.moveToInbox({ notificationIds: part });
        for (const part of chunks(plan.toDone)) await inbox.markDone({ notificationIds: part });
        for (const r of plan.resnooze) await inbox.snooze({ notificationId: r.id, until: timestampFromDate(new Date(r.until)) });
      }
      toast('Undone');
    } catch (e) {
      toast(`Undo failed: ${errorText(e)}`);
      void list(true);
    } finally {
      pending.current--;
      refreshCounts();
    }
  };

  /** Marks the rows read (MarkRead takes one id: eight calls at a time) or unread (MarkUnread, 500 ids a call), here as the answers come. */
  const writeRead = async (rows: readonly InboxItem[], read: boolean) => {
    if (read) {
      for (const part of chunks(rows, 8)) {
        const done = await Promise.all(part.map((r) => inbox.markRead({ notificationId: r.notificationId })));
        applyLocal(done.flatMap((res) => (res.item ? [res.item] : [])));
        setUnread(Math.min(...done.map((res) => res.unreadCount)));
      }
      return;
    }
    applyLocal(rows.map((r) => ({ ...r, read: false, readAt: undefined }) as InboxItem));
    for (const part of chunks(rows.map((r) => r.notificationId))) setUnread((await inbox.markUnread({ notificationIds: part })).unreadCount);
  };

  /**
   * `u` and the read buttons: the rows (a group's members, a selection) are marked read when any of
   * them is unread, else all unread; a toast with "Undo" (`z`), which marks them the other way again.
   */
  const toggleRead = async (ids: string[]) => {
    const all = rowsOf(ids);
    const kind = readToggle(all.map((r) => r.read));
    if (kind === undefined) return;
    const rows = all.filter((r) => r.read !== (kind === 'read'));
    try {
      await writeRead(rows, kind === 'read');
      const action: Undoable = { kind, before: rows };
      undoStack.current = [...undoStack.current.slice(-19), action];
      action.toast = toast(triageText(kind, rows.length), { label: 'Undo', run: () => void undo(action) });
    } catch (e) {
      toast(`${kind === 'read' ? 'Mark read' : 'Mark unread'} failed: ${errorText(e)}`);
      void list(true);
    } finally {
      refreshCounts();
    }
  };

  const openMenu = (ids: string[], at: string) => {
    if (ids.length === 0) return;
    if (menu?.at === at) {
      setMenu(null);
      return;
    }
    menuReturn.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setMenu({ ids, at });
  };
  const closeMenu = (restoreFocus: boolean) => {
    setMenu(null);
    if (restoreFocus) {
      const back = menuReturn.current;
      if (back?.isConnected) back.focus();
      else wantFocus.current = true;
    }
  };
  const pickSnooze = (choice: SnoozeChoice) => {
    const ids = menu?.ids ?? [];
    wantFocus.current = true;
    setMenu(null);
    void triage('snooze', ids, choice);
  };
  const menuFor = (at: string, labelledBy: string) =>
    menu?.at === at ? <SnoozeMenu id="snooze-menu" labelledBy={labelledBy} onPick={pickSnooze} onClose={closeMenu} /> : null;

  /** The notifications a row stands for (a group's row: all its loaded members). */
  const idsOfRow = (key: string | null): string[] => (key ? (index.ids.get(key) ?? []) : []);
  /** The rows a key acts on: the selection, else the cursor row (a group: all of it). */
  const targets = (): string[] => (selected.size > 0 ? [...selected] : idsOfRow(cursorId));

  const moveCursor = (by: number) => {
    if (nav.length === 0) return;
    const at = cursorId ? nav.indexOf(cursorId) : -1;
    const to = at < 0 ? 0 : Math.max(0, Math.min(nav.length - 1, at + by));
    const key = nav[to]!;
    setCursor(key);
    focusRow(key);
  };

  const keydown = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    if (document.querySelector('dialog[open]') || (e.target as Element | null)?.closest?.('.snooze-pop')) return;
    const afterG = Date.now() - gAt.current < SEQUENCE_MS;
    gAt.current = 0;
    const cmd = commandOf(e.key, afterG);
    if (cmd === undefined) return;
    if (cmd === 'g') {
      gAt.current = Date.now();
      e.preventDefault();
      return;
    }
    if (typeof cmd === 'object') {
      e.preventDefault();
      if (cmd.go !== viewRef.current) navigate(inboxHref(cmd.go, queryRef.current));
      return;
    }
    // Enter on a link, a button or a checkbox does what it does there.
    const target = e.target as Element | null;
    if (cmd === 'open' && e.key === 'Enter' && target?.closest?.('a, button, input, select, textarea, summary')) return;
    e.preventDefault();
    switch (cmd) {
      case 'next':
        return moveCursor(1);
      case 'prev':
        return moveCursor(-1);
      case 'open': {
        const first = idsOfRow(cursorId)[0];
        if (first) navigate(`/inbox/${first}`);
        return;
      }
      case 'done': {
        const ids = targets();
        if (ids.length > 0 && rowsOf(ids).every((r) => r.state === 'done')) toast('Already done');
        else void triage('done', ids);
        return;
      }
      case 'snooze':
        return openMenu(targets(), selected.size > 0 ? 'bulk' : (cursorId ?? ''));
      case 'read': {
        const ids = targets();
        if (ids.length > 0) void toggleRead(ids);
        return;
      }
      case 'select':
        if (cursorId) toggleSelected(idsOfRow(cursorId));
        return;
      case 'undo': {
        const last = undoStack.current[undoStack.current.length - 1];
        if (last) void undo(last);
        else toast('Nothing to undo');
        return;
      }
      case 'help':
        setHelp(true);
        return;
      case 'search':
        // Its keydown is taken (preventDefault above): the `/` is not typed into the box.
        searchRef.current?.focus();
        searchRef.current?.select();
        return;
      case 'clear':
        // A menu whose focus is elsewhere still closes first.
        if (menu) closeMenu(true);
        else if (selected.size > 0) setSelected(new Set());
        return;
    }
  };
  const keydownRef = useRef(keydown);
  keydownRef.current = keydown;
  useEffect(() => {
    const on = (e: KeyboardEvent) => keydownRef.current(e);
    document.addEventListener('keydown', on);
    return () => document.removeEventListener('keydown', on);
  }, []);

  /** Selects the rows, or unselects them when all are selected (a group's checkbox: all its members). */
  const toggleSelected = (ids: readonly string[]) =>
    setSelected((s) => {
      const n = new Set(s);
      if (ids.every((id) => n.has(id))) for (const id of ids) n.delete(id);
      else for (const id of ids) n.add(id);
      return n;
    });

  const toggleExpanded = (key: string) =>
    setExpanded((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });

  /** The toggle: applied at once, stored as the user's preference; put back when it could not be stored. */
  const setGroupRepeats = async (on: boolean) => {
    const seq = ++groupingSeq.current;
    setGrouping(on);
    setExpanded(new Set());
    try {
      const stored = await writeGrouping(on);
      if (seq === groupingSeq.current) setGrouping(stored);
    } catch (e) {
      if (seq !== groupingSeq.current) return;
      setGrouping(!on);
      toast(`Could not save “Group repeats”: ${errorText(e)}`);
    }
  };

  /**
   * "Mark all done": the view's rows matching the filters to Done, MarkAllDone after MarkAllDone
   * (at most 1,000 each) while the server says more remain, the count so far shown; no Undo (the
   * rows it took are not known here: Move to Inbox from Done brings rows back).
   */
  const markAllDone = async () => {
    if (marking !== null) return;
    const v = viewRef.current;
    const f = filtersRef.current;
    const vq = queryRef.current;
    let n = 0;
    setMarking(0);
    try {
      for (;;) {
        const res = await inbox.markAllDone({
          view: v,
          severities: f.severity ? [f.severity] : [],
          eventType: f.eventType || undefined,
          query: vq || undefined,
        });
        n += res.updatedCount;
        setMarking(n);
        // No progress with more said to remain (rows locked by another action): stop rather than spin.
        if (!res.more || res.updatedCount === 0) break;
      }
      toast(markAllDoneText(n));
    } catch (e) {
      toast(n > 0 ? `Mark all done stopped after ${markAllDoneText(n).split(' (')[0]}: ${errorText(e)}` : `Mark all done failed: ${errorText(e)}`);
    } finally {
      setMarking(null);
      wantFocus.current = true;
      void list(true);
      refreshCounts();
    }
  };

  const markAll = async () => {
    try {
      const res = await inbox.markAllRead({});
      toast(res.markedCount === 1 ? 'Marked 1 notification read' : `Marked ${res.markedCount} notifications read`);
      setItems((cur) => cur?.map((i) => (i.read ? i : ({ ...i, read: true } as InboxItem))) ?? cur);
      setUnread(0);
      refreshCounts();
    } catch (e) {
      toast(`Mark all read failed: ${errorText(e)}`);
    }
  };

  /** Enter in the search box: the view listed with the query (its address, so reload and back keep it). */
  const submitSearch = (e: Event) => {
    e.preventDefault();
    const next = draft.trim();
    if (next === q) void list();
    else navigate(inboxHref(viewRef.current, next));
  };
  /** Esc in the box, its clear button, or the box emptied: the view unfiltered again. */
  const clearSearch = () => {
    setDraft('');
    setQueryError('');
    if (q) navigate(inboxHref(viewRef.current, ''));
  };
  const searchKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      if (draft || q) clearSearch();
      else searchRef.current?.blur();
    } else if (e.key === 'ArrowDown' && nav.length > 0) {
      // Down from the box: to the list's first row (j / k go on from there).
      e.preventDefault();
      setCursor(nav[0]!);
      focusRow(nav[0]!);
    }
  };

  const applyEventType = (e: Event) => {
    e.preventDefault();
    setFilters((f) => ({ ...f, eventType: eventTypeDraft.trim() }));
  };

  const selectedRows = selected.size > 0 ? rowsOf([...selected]) : [];

  const itemRow = (i: InboxItem) => (
    <InboxRow
      key={i.notificationId}
      item={i}
      cursor={i.notificationId === cursorId}
      selected={selected.has(i.notificationId)}
      menuOpen={menu?.at === i.notificationId}
      menu={menuFor(i.notificationId, `snooze-${i.notificationId}`)}
      onSelect={() => toggleSelected([i.notificationId])}
      onDone={() => void triage('done', [i.notificationId])}
      onMove={() => void triage('inbox', [i.notificationId])}
      onRead={() => void toggleRead([i.notificationId])}
      onSnooze={() => openMenu([i.notificationId], i.notificationId)}
    />
  );

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
        {MARK_ALL_VIEWS.includes(view) && (
          <button type="button" onClick={() => void markAllDone()} disabled={marking !== null || items === null || total === 0 || queryError !== ''}>
            {markAllDoneLabel(!!q, total, capped)}
          </button>
        )}
        {marking !== null && (
          <span class="mark-progress" role="status">
            {markAllProgressText(marking)}
          </span>
        )}
        <button type="button" class="help-button" onClick={() => setHelp(true)} aria-keyshortcuts="?">
          Keyboard shortcuts
        </button>
      </div>
      <nav aria-label="Views">
        <ul class="view-tabs">
          {INBOX_VIEWS.map((v) => (
            <li key={v}>
              <Link class="view-tab" href={inboxHref(v, q)} aria-current={v === view ? 'page' : undefined}>
                {VIEW_LABELS[v]}
                {counts?.[v] && (
                  <>
                    {' '}
                    <span class="view-counts">{countText(counts[v])}</span>
                  </>
                )}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <search aria-label="Inbox">
        <form class="search" onSubmit={submitSearch}>
          <label for="inbox-search">Search</label>
          <input
            id="inbox-search"
            ref={searchRef}
            type="search"
            name="q"
            value={draft}
            maxLength={INBOX_LIMITS.queryMax}
            autoComplete="off"
            spellcheck={false}
            placeholder="e.g. deploy severity:critical -is:read"
            aria-keyshortcuts="/"
            aria-invalid={queryError ? 'true' : undefined}
            aria-describedby={queryError ? 'search-error search-hint' : 'search-hint'}
            onInput={(e) => {
              const value = (e.target as HTMLInputElement).value;
              setDraft(value);
              // The box emptied (its clear button, or every character deleted): no search.
              if (value === '' && (q || queryError)) clearSearch();
            }}
            onKeyDown={searchKeyDown}
          />
          <button type="submit">Search</button>
          {queryError && (
            <p id="search-error" class="error search-error" role="alert">
              {queryError}
            </p>
          )}
          <p id="search-hint" class="hint search-hint">
            Words match the start of words in titles, summaries, labels and names; <code>is:</code>, <code>severity:</code>, <code>status:</code>,{' '}
            <code>type:</code>, <code>from:</code>, <code>after:</code>, <code>before:</code> filter, a leading <code>-</code> negates one.
          </p>
        </form>
      </search>
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
              maxLength={INBOX_LIMITS.eventTypeFilterMax}
              placeholder="e.g. ci.build.failed"
              onInput={(e) => setEventTypeDraft((e.target as HTMLInputElement).value)}
              onChange={(e) => setFilters((f) => ({ ...f, eventType: (e.target as HTMLInputElement).value.trim() }))}
            />
          )}
        </Field>
        <button type="submit">Filter</button>
        {view === 'inbox' && (
          <div class="field group-toggle">
            <input
              id="group-repeats"
              type="checkbox"
              checked={grouping ?? true}
              disabled={grouping === null}
              aria-describedby={q ? 'group-hint' : undefined}
              onChange={(e) => void setGroupRepeats((e.target as HTMLInputElement).checked)}
            />
            <label for="group-repeats">Group repeats</label>
            {q && (
              <span id="group-hint" class="hint">
                (among the search's results)
              </span>
            )}
          </div>
        )}
      </form>
      {error && (
        <p class="error" role="alert">
          Could not load the inbox: {error}
        </p>
      )}
      {(items === null || grouping === null) && !error && !queryError && <p class="loading">Loading…</p>}
      {items !== null && grouping !== null && (
        <>
          <p class="total" aria-live="polite">
            {listedQ ? resultsText(total, capped) : total === 1 ? '1 notification' : `${total} notifications`}
          </p>
          {selected.size > 0 && (
            <fieldset class="bulk">
              <legend class="bulk-count">{selected.size} selected</legend>
              {selectedRows.some((r) => r.state !== 'done') && (
                <button type="button" onClick={() => void triage('done', [...selected])}>
                  Done
                </button>
              )}
              {selectedRows.some((r) => r.state !== 'inbox') && (
                <button type="button" onClick={() => void triage('inbox', [...selected])}>
                  Move to Inbox
                </button>
              )}
              <button type="button" onClick={() => void toggleRead([...selected])}>
                {readToggle(selectedRows.map((r) => r.read)) === 'unread' ? 'Mark unread' : 'Mark read'}
              </button>
              <SnoozeTrigger id="snooze-bulk" open={menu?.at === 'bulk'} onClick={() => openMenu([...selected], 'bulk')} menu={menuFor('bulk', 'snooze-bulk')}>
                Snooze
              </SnoozeTrigger>
              <button type="button" onClick={() => setSelected(new Set())}>
                Clear selection
              </button>
            </fieldset>
          )}
          <ul
            class="items"
            aria-label="Inbox"
            onFocusIn={(e) => {
              const li = (e.target as Element).closest<HTMLElement>('li[data-id]');
              if (li?.dataset.id && li.dataset.id !== cursorId) setCursor(li.dataset.id);
            }}
          >
            {rows.map((r) => {
              if (r.kind === 'item') return itemRow(r.item);
              const ids = r.items.map((i) => i.notificationId);
              const dom = domId(r.key);
              return (
                <GroupRow
                  key={r.key}
                  row={r}
                  dom={dom}
                  open={expanded.has(r.key)}
                  cursor={r.key === cursorId}
                  selected={ids.every((id) => selected.has(id))}
                  menuOpen={menu?.at === r.key}
                  menu={menuFor(r.key, `snooze-${dom}`)}
                  onToggle={() => toggleExpanded(r.key)}
                  onSelect={() => toggleSelected(ids)}
                  onDone={() => void triage('done', ids)}
                  onRead={() => void toggleRead(ids)}
                  onSnooze={() => openMenu(ids, r.key)}
                >
                  {r.items.map(itemRow)}
                </GroupRow>
              );
            })}
          </ul>
          {items.length === 0 &&
            (listedQ ? (
              <div class="empty no-matches">
                <p>No matches</p>
                <button type="button" onClick={clearSearch}>
                  Clear search
                </button>
              </div>
            ) : (
              <p class="empty">{EMPTY[view]}</p>
            ))}
          {next && (
            <button type="button" class="more" onClick={more}>
              Load more
            </button>
          )}
        </>
      )}
      {help && <ShortcutsDialog onClose={() => setHelp(false)} />}
    </section>
  );
}

const EMPTY: Record<InboxView, string> = {
  inbox: 'Nothing here.',
  snoozed: 'Nothing snoozed.',
  done: 'Nothing done yet.',
  all: 'Nothing here.',
};

/** A view's count in its link: "12", or "12 · 3 unread" (one text: "3 unread" alone is the page's unread count). */
function countText(c: { total: number; unread: number }): string {
  return c.unread > 0 ? `${c.total} · ${c.unread} unread` : `${c.total}`;
}

function InboxRow({
  item,
  cursor,
  selected,
  menuOpen,
  menu,
  onSelect,
  onDone,
  onMove,
  onRead,
  onSnooze,
}: {
  item: InboxItem;
  cursor: boolean;
  selected: boolean;
  menuOpen: boolean;
  menu: ComponentChildren;
  onSelect: () => void;
  onDone: () => void;
  onMove: () => void;
  onRead: () => void;
  onSnooze: () => void;
}) {
  const id = item.notificationId;
  const titleId = `title-${id}`;
  const cls = `${itemClasses(item, 'item')} triage-row${cursor ? ' is-cursor' : ''}${selected ? ' is-selected' : ''}`;
  return (
    <li class={cls} data-id={id}>
      <input type="checkbox" class="select" checked={selected} onChange={onSelect} aria-label={`Select ${item.title}`} />
      <article>
        <header class="item-head">
          <Severity item={item} />
          <Link id={titleId} class="item-title" href={`/inbox/${id}`}>
            {item.title}
          </Link>
        </header>
        {item.summary && <p class="summary">{item.summary}</p>}
        <Meta item={item} />
        {item.state === 'snoozed' && (
          <p class="triage-state">
            Snoozed until <Time at={item.snoozedUntil} />
          </p>
        )}
        {item.state === 'done' && (
          <p class="triage-state">
            Done <Time at={item.doneAt} />
          </p>
        )}
      </article>
      <div class="triage-buttons">
        {item.state !== 'done' && (
          <button type="button" aria-describedby={titleId} onClick={onDone}>
            Done
          </button>
        )}
        {item.state !== 'inbox' && (
          <button type="button" aria-describedby={titleId} onClick={onMove}>
            Move to Inbox
          </button>
        )}
        <button type="button" aria-describedby={titleId} onClick={onRead}>
          {item.read ? 'Mark unread' : 'Mark read'}
        </button>
        <SnoozeTrigger id={`snooze-${id}`} describedBy={titleId} open={menuOpen} onClick={onSnooze} menu={menu}>
          Snooze
        </SnoozeTrigger>
      </div>
    </li>
  );
}

/**
 * A group of repeats as one row: the newest member's title, severity and details, the count, and
 * buttons acting on all its loaded members; "Show N like this" lists every member under it.
 */
function GroupRow({
  row,
  dom,
  open,
  cursor,
  selected,
  menuOpen,
  menu,
  onToggle,
  onSelect,
  onDone,
  onRead,
  onSnooze,
  children,
}: {
  row: Extract<ListRow, { kind: 'group' }>;
  dom: string;
  open: boolean;
  cursor: boolean;
  selected: boolean;
  menuOpen: boolean;
  menu: ComponentChildren;
  onToggle: () => void;
  onSelect: () => void;
  onDone: () => void;
  onRead: () => void;
  onSnooze: () => void;
  children: ComponentChildren;
}) {
  const newest = row.items[0]!;
  const n = row.items.length;
  const titleId = `title-${dom}`;
  const countId = `count-${dom}`;
  const membersId = `members-${dom}`;
  // Unread when any member is (the newest's own mark shows in its details).
  const unread = row.items.some((i) => !i.read);
  const base = itemClasses({ ...newest, read: !unread } as InboxItem, 'item');
  const cls = `${base} triage-row group-row${cursor ? ' is-cursor' : ''}${selected ? ' is-selected' : ''}`;
  return (
    <li class={cls} data-id={row.key}>
      <input type="checkbox" class="select" checked={selected} onChange={onSelect} aria-label={`Select ${groupCountText(n)}: ${newest.title}`} />
      <article>
        <header class="item-head">
          <Severity item={newest} />
          <Link id={titleId} class="item-title" href={`/inbox/${newest.notificationId}`} aria-describedby={countId}>
            {newest.title}
          </Link>
          <span id={countId} class="group-count">
            {groupCountText(n)}
          </span>
        </header>
        {newest.summary && <p class="summary">{newest.summary}</p>}
        <Meta item={newest} />
        <button
          type="button"
          class="group-toggle-button"
          aria-expanded={open}
          aria-controls={open ? membersId : undefined}
          aria-describedby={titleId}
          onClick={onToggle}
        >
          {moreLikeThisText(n, open)}
        </button>
      </article>
      <div class="triage-buttons">
        <button type="button" aria-describedby={titleId} onClick={onDone}>
          Done all {n}
        </button>
        <button type="button" aria-describedby={titleId} onClick={onRead}>
          {unread ? 'Mark read' : 'Mark unread'}
        </button>
        <SnoozeTrigger id={`snooze-${dom}`} describedBy={titleId} open={menuOpen} onClick={onSnooze} menu={menu}>
          Snooze all {n}
        </SnoozeTrigger>
      </div>
      {open && (
        <ul class="items group-members" id={membersId} aria-label={`${groupCountText(n)} like ${newest.title}`}>
          {children}
        </ul>
      )}
    </li>
  );
}

/** The button that opens the snooze menu (one row, a group, the selection), with the menu beside it when open. */
function SnoozeTrigger(p: { id: string; describedBy?: string; open: boolean; onClick: () => void; menu: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="snooze-wrap">
      <button
        type="button"
        id={p.id}
        aria-describedby={p.describedBy}
        aria-haspopup="menu"
        aria-expanded={p.open}
        aria-controls={p.open ? 'snooze-menu' : undefined}
        onClick={p.onClick}
      >
        {p.children}
      </button>
      {p.menu}
    </div>
  );
}
