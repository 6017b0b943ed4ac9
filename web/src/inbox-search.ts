// The inbox page's search box, the parts without the DOM (unit-tested in
// test/unit/web-inbox-search.test.ts): the view and the query in the address (`?view=` and `?q=`,
// so a reload and back / forward keep both, and switching views keeps the query), the result line
// and the "Mark all done" label under a search, and the server's reason for a malformed query (the
// search language is the server's: src/domain/inbox/inbox-query.rules.ts; the box sends the text
// as typed and shows what the server could not read).
import { Code, ConnectError } from '@connectrpc/connect';
import { ValidationErrorDetailSchema } from '../../gen/fluxdesk/common/v1/errors_pb.js';
import type { InboxView } from '../../src/domain/inbox/inbox.limits.js';
import { viewOf } from './inbox-list.js';

/** The view and the search an address names (`?view=`, `?q=`; a blank query is no search). */
export function locationOf(search: string): { view: InboxView; q: string } {
  const p = new URLSearchParams(search);
  return { view: viewOf(p.get('view')), q: (p.get('q') ?? '').trim() };
}

/** The address of a view with a search: `/`, `/?view=done`, `/?q=deploy`, `/?view=all&q=deploy`. */
export function inboxHref(view: InboxView, q = ''): string {
  const p = new URLSearchParams();
  if (view !== 'inbox') p.set('view', view);
  if (q.trim() !== '') p.set('q', q.trim());
  const s = p.toString();
  return s === '' ? '/' : `/?${s}`;
}

/** The inbox address last shown in this tab (view and search), for the item page's way back. */
let lastInbox = '/';
export const rememberInboxHref = (href: string): void => {
  lastInbox = href;
};
/** Where "← Inbox" on an item page goes: the view and search it was opened from ('/' after a reload). */
export const lastInboxHref = (): string => lastInbox;

const count = new Intl.NumberFormat('en-US');

/** How many a search matched: "1 result", "12 results", "100+ results" (ListInbox counts a search up to INBOX_LIMITS.searchCountMax). */
export function resultsText(total: number, capped: boolean): string {
  if (capped) return `${count.format(total)}+ results`;
  return total === 1 ? '1 result' : `${count.format(total)} results`;
}

/** "Mark all done", or under a search what it acts on: "Mark all 12 results done", "Mark the 1 result done". */
export function markAllDoneLabel(searching: boolean, total: number, capped: boolean): string {
  if (!searching) return 'Mark all done';
  if (!capped && total === 1) return 'Mark the 1 result done';
  return `Mark all ${resultsText(total, capped)} done`;
}

/**
 * The server's reason when it could not read the query (invalid_argument with a violation of field
 * `query`, code `invalid_query`: `could not read "severity:fatal": severity: is one of ...`), else
 * undefined (any other failure is not the query's).
 */
export function queryProblem(e: unknown): string | undefined {
  if (!(e instanceof ConnectError) || e.code !== Code.InvalidArgument) return undefined;
  for (const d of e.findDetails(ValidationErrorDetailSchema))
    for (const v of d.violations) if (v.field === 'query') return v.message || 'the search could not be read';
  return undefined;
}
