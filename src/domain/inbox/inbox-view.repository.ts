// Named queries of the person-facing inbox (InboxService: the web app and any company frontend).
// Every statement filters on the owner in SQL (`n.user_id = ?`): another user's id reads, counts
// and changes nothing, exactly like an unknown id. An item carries its event's fields from the
// delivery (deliveries, one row by primary key) with its supplements and actions in the SAME
// statement (a correlated aggregate per item): a page is one round trip whatever its size.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { PREPARED, pgArray } from '../sql-hints.js';

export interface InboxItemRow {
  id: string;
  type: string;
  title: string;
  summary: string | null;
  body: string | null;
  read_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  target_url: string | null;
  delivery_id: string | null;
  actor_user_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  event_type: string | null;
  severity: string | null;
  tone: string | null;
  markdown_body_rendering: string | null;
  external_url: string | null;
  external_status: string | null;
  external_status_at: Date | string | null;
  resolved_at: Date | string | null;
  resolution_note: string | null;
  fire_count: number | null;
  /** deliveries.actor as sent: {email, name?}. */
  event_actor: { email?: unknown; name?: unknown } | null;
  labels: Record<string, unknown> | null;
  /** deliveries.actions as stored (webhook_url included: the view never passes it on). */
  actions: unknown[] | null;
  occurred_at: Date | string | null;
  /** [{id, markdown_body, created_at}] oldest first, or null. */
  supplements: Array<{ id: string; markdown_body: string; created_at: string }> | null;
  /** The row's (created_at, id) position as text, for a page token. */
  cursor_at: string;
}

// updated_at: the latest of the row's own changes (a read mark, a repeat's new text) and its
// delivery's (a repeat's arrival, a resolve, a supplement); greatest() skips NULLs.
// external_status_at: when the status took its present value (set by the publish statements and
// resolve). Rows written before that column fall back to what was shown until then: resolved_at
// for `resolved` (a resolve stamps it), else the last arrival.
const ITEM_COLUMNS = `n.id, n.type, n.title, n.summary, n.body, n.read_at, n.created_at,
  greatest(n.updated_at, d.last_event_at, d.resolved_at, s.last_at) as updated_at,
  n.target_url, n.delivery_id, n.actor_user_id, u.email as actor_email, u.name as actor_name,
  d.event_type, d.severity, d.tone, d.markdown_body_rendering, d.external_url, d.external_status,
  case when d.external_status is null then null
       when d.external_status_at is not null then d.external_status_at
       when d.external_status = 'resolved' and d.resolved_at is not null then d.resolved_at
       else d.last_event_at end as external_status_at,
  d.resolved_at, d.resolution_note, d.fire_count, d.actor as event_actor, d.labels, d.actions, d.occurred_at,
  s.items as supplements, n.created_at::text as cursor_at`;

const ITEM_JOINS = `left join users u on u.id = n.actor_user_id
  left join deliveries d on d.id = n.delivery_id
  left join lateral (
    select json_agg(json_build_object('id', x.id, 'markdown_body', x.markdown_body, 'created_at', x.created_at) order by x.created_at, x.seq) as items,
      max(x.created_at) as last_at
    from delivery_supplements x where n.delivery_id is not null and x.delivery_id = n.delivery_id
  ) s on true`;

export interface InboxViewFilter {
  userId: string;
  unreadOnly: boolean;
  /** Empty: every severity. */
  severities: readonly string[];
  /** Undefined: every event type. */
  eventType: string | undefined;
  /** Rows strictly after this (created_at text, id) position, newest first. */
  after: { at: string; id: string } | undefined;
}

export interface InboxViewPage {
  total: number;
  unread: number;
  /** Up to limit + 1 rows: one more than the page tells that another page follows. */
  rows: InboxItemRow[];
}

/**
 * The page statement for one combination of filters (fixed text, never built from input values;
 * each a prepared statement with its own plan). Counts: unread over the whole inbox from
 * inbox_counters; total from the counters too unless an event filter applies (severity or type
 * live on deliveries: counted over the user's rows then). Items walk the (user_id, created_at, id)
 * index backwards from the page token and stop at limit + 1 or at the number of matching rows.
 */
function pageSql(unreadOnly: boolean, bySeverity: boolean, byType: boolean, after: boolean): string {
  const eventFilter = (bySeverity ? ' and d.severity = any(?::text[])' : '') + (byType ? ' and d.event_type = ?' : '');
  const unread = unreadOnly ? ' and n.read_at is null' : '';
  const total =
    bySeverity || byType
      ? `(select count(*) from notifications n join deliveries d on d.id = n.delivery_id where n.user_id = ?${unread}${eventFilter})::int`
      : `coalesce(sum(${unreadOnly ? 'unread' : 'total'}), 0)::int`;
  const itemFrom = bySeverity || byType ? 'notifications n join deliveries df on df.id = n.delivery_id' : 'notifications n';
  return `${PREPARED} with c as (
  select ${total} as total_count, coalesce(sum(unread), 0)::int as unread_count from inbox_counters where user_id = ?
)
select c.total_count, c.unread_count, i.* from c left join lateral (
  select ${ITEM_COLUMNS}
  from (
    select n.id from ${itemFrom}
    where n.user_id = ?${unread}${eventFilter.replaceAll('d.', 'df.')}${after ? ' and (n.created_at, n.id) < (?::timestamptz, ?::uuid)' : ''}
    order by n.created_at desc, n.id desc limit least(?::int, c.total_count)
  ) p join notifications n on n.id = p.id
  ${ITEM_JOINS}
) i on true
order by i.created_at desc, i.id desc`;
}

/** Every combination's statement, made once as the module loads: 16 fixed texts, keyed as listInboxView asks. */
const PAGE_SQL: ReadonlyMap<string, string> = new Map(
  [false, true].flatMap((u) =>
    [false, true].flatMap((s) => [false, true].flatMap((t) => [false, true].map((a) => [`${u}:${s}:${t}:${a}`, pageSql(u, s, t, a)] as const))),
  ),
);

export async function listInboxView(em: EntityManager, f: InboxViewFilter, limit: number): Promise<InboxViewPage> {
  const bySeverity = f.severities.length > 0;
  const byType = f.eventType !== undefined;
  const key = `${f.unreadOnly}:${bySeverity}:${byType}:${f.after !== undefined}`;
  const sql = PAGE_SQL.get(key)!;
  const filterParams: unknown[] = [];
  if (bySeverity) filterParams.push(pgArray(f.severities));
  if (byType) filterParams.push(f.eventType);
  const params: unknown[] = [];
  if (bySeverity || byType) params.push(f.userId, ...filterParams);
  params.push(f.userId, f.userId, ...filterParams);
  if (f.after) params.push(f.after.at, f.after.id);
  params.push(limit + 1);
  const rows = await run<InboxItemRow & { total_count: number; unread_count: number }>(em, sql, params);
  const first = rows[0];
  return {
    total: Number(first?.total_count ?? 0),
    unread: Number(first?.unread_count ?? 0),
    // An empty page is one row of counts with null item columns (left join).
    rows: rows.filter((r) => r.id !== null),
  };
}

/** The caller's own rows among these notification and delivery ids (others: absent), newest first. */
export async function findOwnInboxItems(
  em: EntityManager,
  userId: string,
  refs: { notificationIds: readonly string[]; deliveryIds: readonly string[] },
): Promise<InboxItemRow[]> {
  if (refs.notificationIds.length === 0 && refs.deliveryIds.length === 0) return [];
  return run<InboxItemRow>(
    em,
    // The ids through their own unique indexes, then the owner filter: the work follows the number
    // of ids, never the size of the inbox (the generic plan of `user_id = ? and (id = any(..) or
    // delivery_id = any(..))` walks the user's rows and filters them).
    `${PREPARED} select ${ITEM_COLUMNS} from notifications n ${ITEM_JOINS}
     where n.id in (select id from notifications where id = any(?::uuid[]) union select id from notifications where delivery_id = any(?::uuid[]))
       and n.user_id = ?
     order by n.created_at desc, n.id desc`,
    [pgArray(refs.notificationIds), pgArray(refs.deliveryIds), userId],
  );
}

/** The caller's unread count over the whole inbox (inbox_counters). */
export async function unreadCountOf(em: EntityManager, userId: string): Promise<number> {
  const rows = await run<{ unread: number }>(em, `${PREPARED} select coalesce(sum(unread), 0)::int as unread from inbox_counters where user_id = ?`, [userId]);
  return Number(rows[0]?.unread ?? 0);
}
