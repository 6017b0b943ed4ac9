// InboxService.ListInbox: the caller's own notifications of one view (Inbox, Snoozed, Done, All),
// newest first, with every event field (inbox-item.view.ts), filtered by read state, severities and
// event type, paged by an opaque keyset token. totalCount counts the rows matching the view and
// filters; unreadCount the unread rows of the whole inbox (every view); viewCounts each view's.
// Scope read:inbox. The MCP tool `list_inbox` (list-inbox.ts) keeps its own contract.
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { InboxQueryField } from './inbox-query.rules.js';
import type { AgentPrincipal } from '../principal.js';
import { SEVERITIES } from '../events/event.limits.js';
import { type InboxItemView, toInboxItemView } from './inbox-item.view.js';
import { listInboxView, type ViewCount } from './inbox-view.repository.js';
import { INBOX_LIMITS, INBOX_VIEWS, type InboxView } from './inbox.limits.js';

/** A page token: base64url of `<created_at as PostgreSQL text>|<notification id>` of the page's last row. */
export function encodePageToken(at: string, id: string): string {
  return Buffer.from(`${at}|${id}`, 'utf8').toString('base64url');
}

const TOKEN_AT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,6})?(Z|[+-]\d{2}(?::?\d{2})?)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The position a token names, or undefined when it is not one this service made (never reaches SQL then). */
export function decodePageToken(token: string): { at: string; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return undefined;
  const [at, id, ...rest] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || at === undefined || id === undefined || !UUID.test(id)) return undefined;
  const m = TOKEN_AT.exec(at);
  // A real calendar date and time (2026-02-30 would fail the SQL cast, not the request).
  if (!m || new Date(`${m[1]}T${m[2]}Z`).toISOString().slice(0, 19) !== `${m[1]}T${m[2]}`) return undefined;
  return { at, id };
}

export const ListInboxItemsInput = z.strictObject({
  view: z.enum(INBOX_VIEWS).default('inbox'),
  query: InboxQueryField,
  unread_only: z.boolean().optional(),
  severities: z.array(z.enum(SEVERITIES)).max(SEVERITIES.length).optional(),
  // An empty text is no filter (a cleared search field).
  event_type: z.string().max(INBOX_LIMITS.eventTypeFilterMax).optional(),
  limit: z.number().int().min(1).max(INBOX_LIMITS.pageMax).default(INBOX_LIMITS.pageDefault),
  page_token: z
    .string()
    .transform((t, ctx) => {
      const at = decodePageToken(t);
      if (at) return at;
      ctx.addIssue({ code: 'custom', message: 'is not a page token of this list (use next_page_token as returned)', params: { code: 'invalid_page_token' } });
      return z.NEVER;
    })
    .optional(),
});
export type ListInboxItemsInput = z.infer<typeof ListInboxItemsInput>;

export interface ListInboxItemsResult {
  items: InboxItemView[];
  totalCount: number;
  /** A search matched more than INBOX_LIMITS.searchCountMax rows: totalCount is that cap. */
  totalCountCapped: boolean;
  unreadCount: number;
  viewCounts: Record<InboxView, ViewCount>;
  nextPageToken?: string;
}

export const listInboxItems = defineOperation<ListInboxItemsInput, ListInboxItemsResult, AgentPrincipal>({
  name: 'inbox.list_items',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: ListInboxItemsInput,
  handler: async (input, ctx) => {
    const page = await listInboxView(
      ctx.em,
      {
        userId: ctx.principal.userId,
        view: input.view,
        query: input.query,
        unreadOnly: input.unread_only === true,
        severities: [...new Set(input.severities ?? [])],
        eventType: input.event_type === undefined || input.event_type === '' ? undefined : input.event_type,
        after: input.page_token,
      },
      input.limit,
    );
    const rows = page.rows.slice(0, input.limit);
    // unreadCount is the whole inbox's, as before views: done rows are read, so it is Inbox + Snoozed.
    const out: ListInboxItemsResult = {
      items: rows.map(toInboxItemView),
      totalCount: page.total,
      totalCountCapped: page.capped,
      unreadCount: page.views.all.unread,
      viewCounts: page.views,
    };
    const last = rows[rows.length - 1];
    if (page.rows.length > input.limit && last) out.nextPageToken = encodePageToken(last.cursor_at, last.id);
    return out;
  },
});
