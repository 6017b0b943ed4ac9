// Named queries for deliveries. A publish is one SQL statement (one round trip, one implicit
// transaction), for one event or a group commit of many: the dedup key (token_id, event_id) in
// delivery_keys (inserted: a first arrival, whose delivery is inserted; present: a repeat, whose
// delivery is updated), the inbox row or hold entry, the daily counters, the nudge outbox rows
// and the audit row (docs/architecture.md, "The publish path"). Never `on conflict` on deliveries
// itself: it is partitioned by month (a post-deploy migration), and a partitioned table has no
// global unique index.
import type { Connection, EntityManager, Transaction } from '@mikro-orm/core';
import type { PrincipalVersions } from '../principal.js';
import type { DeliveryRow, NewDelivery } from './event-store.js';
import type { InboundEvent } from './event-validation.rules.js';
import { PREPARED } from '../sql-hints.js';
import { searchDocSql, searchLexemesLiteral } from '../inbox/search-doc.rules.js';
import { deliveryOf } from '../inbox/inbox-view.repository.js';
import { MAX_INBOX_PER_USER_PER_DAY } from '../nudges/nudge.rules.js';
import { nudgeChannelSql, tokenThresholdSql } from '../nudges/nudges.repository.js';
import { TERMINAL_EXTERNAL_STATUSES } from './event.limits.js';

/** The inbox row's search document (search-doc.rules.ts): `v`'s word lexemes and the delivery `d`'s severity, type and token. */
const SEARCH_DOC = searchDocSql('v.search_words', 'd.recipient_user_id', 'd.severity', 'd.event_type', 'd.token_id');

/** The word lexemes of a delivery's inbox row, as a text[] parameter. */
const searchWords = (n: NewDelivery): string =>
  searchLexemesLiteral({
    userId: n.recipientUserId,
    title: n.title,
    summary: n.summary,
    labels: n.labels,
    actorName: (n.actor as { name?: unknown } | null | undefined)?.name as string | undefined,
  });

// Constants inlined into the fixed SQL text (no apostrophes inside: they are plain words).
const TERMINAL_SQL = TERMINAL_EXTERNAL_STATUSES.map((st) => `'${st}'`).join(', ');
const NUDGE_CHANNELS = nudgeChannelSql('d.recipient_user_id', 'd.severity', 'd.at');

/** The stored shape of an accepted InboundEvent for one recipient token. */
export function newDelivery(ev: InboundEvent, to: { tokenId: string; integratorId: string; recipientUserId: string; projectId: string | null }): NewDelivery {
  return {
    ...to,
    eventId: ev.event_id,
    eventType: ev.event_type,
    severity: ev.severity,
    tone: ev.tone ?? null,
    title: ev.title,
    summary: ev.summary ?? null,
    markdownBody: ev.markdown_body ?? null,
    markdownBodyRendering: ev.markdown_body_rendering ?? null,
    externalUrl: ev.external_url ?? null,
    externalStatus: ev.external_status ?? null,
    actor: ev.actor,
    labels: ev.labels,
    actions: ev.actions,
    recipientHint: ev.recipient_hint,
    recipient: ev.recipient,
    locale: ev.locale ?? null,
    occurredAt: new Date(ev.occurred_at).toISOString(),
  };
}

export interface UpsertContext {
  now: string;
  /** The service clock's UTC date (YYYY-MM-DD): the day the daily counters count in. */
  day: string;
  /** true for moderation tokens: a moderation_queue entry instead of an inbox row, never a nudge (SPEC mode 2). */
  hold?: boolean;
  source: string;
  requestId: string;
}

// What a DeliveryRow holds: the columns the Delivery view (delivery.view.ts) and the callers read.
// Not markdown_body (up to 8,000 characters, never part of the view): statements that need it in a
// CTE return it there, but never send it back.
const DELIVERY_COLUMNS = `id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title,
  summary, external_url, external_status, locale, recipient_hint, occurred_at, created_at, resolved_at, resolution_note,
  fire_count`;
/** DELIVERY_COLUMNS of table alias `t`. */
const columnsOf = (t: string) =>
  DELIVERY_COLUMNS.split(',')
    .map((c) => `${t}.${c.trim()}`)
    .join(', ');

// One VALUES row per delivery, with its own request id, surface and time (the rows of a group
// commit come from different requests; the daily counters are summed per statement).
// Every placeholder is cast: a VALUES list takes its column types from the casts, and a NULL
// in the first row must not turn a uuid/jsonb column into text.
const VALUE_ROW = `(?::uuid, ?::uuid, ?::uuid, ?::uuid, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar,
  ?::text, ?::varchar, ?::varchar, ?::varchar, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::varchar, ?::timestamptz,
  ?::varchar, ?::varchar, ?::timestamptz, ?::xid, ?::xid, ?::xid, ?::text[])`;

// A row carrying its principal's row versions (principal cache) is written only while the token,
// its owner and its integrator are still at them; rows without versions were looked up just now.
// Three scalar subqueries by primary key: one index probe each, whatever the planner thinks of the
// table sizes (an EXISTS over a join was planned as hash joins over whole tables).
const PRINCIPAL_CURRENT = `(v.token_ver is null or (
      (select t.xmin from inbound_tokens t where t.id = v.token_id) = v.token_ver
      and (select u.xmin from users u where u.id = v.recipient_user_id) = v.user_ver
      and (select i.xmin from integrators i where i.id = v.integrator_id) = v.integrator_ver))`;

// A repeat's status time: the arrival's time when it brings a status the delivery did not have; a
// repeat without a status, or with the same one, keeps the time the status was first set.
const STATUS_AT_ON_REPEAT = (status: string, row: string, at: string) =>
  `external_status_at = case when ${status} is not null and ${status} is distinct from ${row}.external_status then ${at}
    else ${row}.external_status_at end`;

// Done on resolution (SPEC "Delivery external status"): a repeat that moves its delivery's external
// status to a terminal one (the status changed on this arrival: its time is the arrival's) when the
// recipient turned done_on_resolution on. The preference is read only for such a repeat.
const DONE_ON_RESOLUTION = `(case when d.external_status in (${TERMINAL_SQL}) and d.external_status_at = d.at
    then coalesce((select p.done_on_resolution from nudge_preferences p where p.user_id = d.recipient_user_id limit 1), false)
    else false end)`;

// A repeat's update of its inbox row (`nu`), in one UPDATE (two CTEs must not update one row):
//  - the new text, written only when it differs: a same-text repeat leaves the row (and its
//    updated_at) alone and fires no inbox-counter trigger work;
//  - done on resolution (above, decided once per delivery in `dr`): the row moves to Done and is
//    read; a row already done stays as it is. The inbox counters follow through their triggers.
// `dr` is a CTE of its own so that the update's join keeps the plan it had without it: a probe of
// the notifications (delivery_id, created_at) index per repeat (with the subquery's cost in the
// join, a plan made while the tables were small hashed the whole notifications table on every
// statement). It carries the delivery's time, so the probe's index condition names the whole key
// and is pruned at run time to the one partition of that time.
const INBOX_TEXT_UPDATE = (onlyRepeats: string) => `dr as materialized (
  select d.id, d.created_at, ${DONE_ON_RESOLUTION} as done from d where ${onlyRepeats}true
), nu as (
  update notifications set title = v.title, summary = v.summary, body = v.markdown_body, updated_at = v.at,
    state = case when dr.done then 'done' else notifications.state end,
    done_at = case when dr.done then coalesce(notifications.done_at, v.at) else notifications.done_at end,
    snoozed_until = case when dr.done then null else notifications.snoozed_until end,
    read_at = case when dr.done then coalesce(notifications.read_at, v.at) else notifications.read_at end,
    search_doc = ${SEARCH_DOC}
  from d join v on v.token_id = d.token_id and v.event_id = d.event_id join dr on dr.id = d.id and dr.created_at = d.created_at
  where ${onlyRepeats}${deliveryOf('notifications', 'd')}
    and ((notifications.title, notifications.summary, notifications.body) is distinct from (v.title, v.summary, v.markdown_body)
      or (dr.done and notifications.state <> 'done'))
)`;

// A repeat's update of its delivery, found through its dedup key (delivery_keys, by the key's
// primary key, then the delivery's: one partition once deliveries is partitioned by month). Only
// keys committed before the statement began are seen: a key inserted by this statement (a first
// arrival) is not, and neither is one a concurrent statement committed while this one ran (see
// writeDeliveries). `body`: also the delivery's markdown_body (the full statement's CTEs read it).
const REPEAT_UPDATE = (name: string, body: boolean) => `${name} as (
  update deliveries x set
    fire_count = x.fire_count + 1,
    external_status = coalesce(v.external_status, x.external_status),
    ${STATUS_AT_ON_REPEAT('v.external_status', 'x', 'v.at')},
    last_event_at = v.at
  from v join delivery_keys dk on dk.token_id = v.token_id and dk.event_id = v.event_id
  where x.id = dk.delivery_id and x.created_at = dk.created_at and ${PRINCIPAL_CURRENT}
  returning ${columnsOf('x')}, ${body ? 'x.markdown_body, ' : ''}x.last_event_at as at, x.external_status_at, false as inserted
)`;

// The dedup key (`k`): inserted, a first arrival. Already there, a repeat; unless it is a day old
// or more and its delivery is gone (retention removed it, docs/scaling.md section 4.3): then it is
// taken over by a new delivery, a first arrival again (the inbound protocol: dedup lasts as long as
// the delivery).
// The day keeps a key a concurrent statement just wrote (its delivery not yet in this statement's
// snapshot) from ever looking gone.
// Two statement texts: an inbox delivery (inbox row, per-user counter, nudge outbox rows) or a
// held one (moderation token: a hold-for-forwarding queue entry instead). A text holds only the
// CTEs its kind can run: each data-modifying CTE is set up on every execution (opening its table and
// indexes), whether or not it writes a row.
// The outbox part reads the recipient's preferences and push subscriptions through LATERAL ...
// LIMIT 1: one index probe per new delivery, whatever the table sizes were when the prepared
// statement was planned (a plain join or EXISTS got planned as a hash of the whole table).
// A new delivery's nudges (`nc`: the channels its recipient has, for the severities their
// preferences and the token's nudge threshold let through) go to the outbox (`o`), or, inside the
// recipient's quiet hours and below critical, to nudge_held (`qh`, one row per delivery) for the
// summary after the quiet hours: `pushed` is true only for outbox rows.
function upsertSql(rows: number, hold: boolean): string {
  const inbox = `, uc as (
  insert into user_daily_counts as c (user_id, day, count)
  select d.recipient_user_id, ?::date, count(*)::int from d where d.inserted group by d.recipient_user_id
  order by d.recipient_user_id
  on conflict (user_id, day) do update set count = c.count + excluded.count
  returning c.user_id, c.count
), lim as (
  select d.id, tc.count > t.daily_limit as token_over, coalesce(uc.count > ${MAX_INBOX_PER_USER_PER_DAY}, false) as user_over,
    ${tokenThresholdSql('t.nudge_threshold', 'd.severity')} as token_nudges
  from d join tc on tc.token_id = d.token_id left join uc on uc.user_id = d.recipient_user_id join inbound_tokens t on t.id = d.token_id
  where d.inserted
), n as (
  insert into notifications (id, user_id, type, title, summary, body, delivery_id, target_url, created_at, updated_at, search_doc)
  select gen_random_uuid(), d.recipient_user_id, 'system', d.title, d.summary, d.markdown_body, d.id, d.external_url, d.at, d.at,
    ${SEARCH_DOC}
  from d join lim on lim.id = d.id join v on v.token_id = d.token_id and v.event_id = d.event_id where not lim.user_over
), ${INBOX_TEXT_UPDATE('not d.inserted and ')}, nc as (
  select d.id, d.recipient_user_id, d.severity, d.at, ch.channel, ${NUDGE_CHANNELS.held} as held
  from d
  join lim on lim.id = d.id and not lim.token_over and not lim.user_over and lim.token_nudges
  ${NUDGE_CHANNELS.joins}
  where (d.external_status is null or d.external_status not in (${TERMINAL_SQL}))
    and ${NUDGE_CHANNELS.where}
), o as (
  insert into nudge_outbox (id, delivery_id, user_id, channel, created_at)
  select gen_random_uuid(), nc.id, nc.recipient_user_id, nc.channel, nc.at from nc where not nc.held
  returning delivery_id
), qh as (
  insert into nudge_held (user_id, delivery_id, severity, held_at)
  select distinct nc.recipient_user_id, nc.id, nc.severity, nc.at from nc where nc.held
)`;
  // A held delivery does not count against its owner's per-user inbox budget and is never nudged.
  const held = `, lim as (
  select d.id, tc.count > t.daily_limit as token_over, false as user_over
  from d join tc on tc.token_id = d.token_id join inbound_tokens t on t.id = d.token_id
  where d.inserted
), q as (
  insert into moderation_queue (id, delivery_id, token_id, admin_user_id, status, title, summary, body, created_at, updated_at)
  select gen_random_uuid(), d.id, d.token_id, d.recipient_user_id, 'pending', d.title, d.summary, d.markdown_body, d.at, d.at
  from d where d.inserted
), qu as (
  update moderation_queue set title = v.title, summary = v.summary, body = v.markdown_body, updated_at = v.at
  from d join v on v.token_id = d.token_id and v.event_id = d.event_id
  where not d.inserted and moderation_queue.delivery_id = d.id and moderation_queue.status = 'pending'
    and moderation_queue.edited_at is null
)`;
  return `${PREPARED}
with v (token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title, summary,
        markdown_body, markdown_body_rendering, external_url, external_status, actor, labels, actions, recipient_hint,
        recipient, locale, occurred_at, source, request_id, at, token_ver, user_ver, integrator_ver, search_words) as (
  values ${Array.from({ length: rows }, () => VALUE_ROW).join(',\n')}
), k as (
  insert into delivery_keys (token_id, event_id, delivery_id, created_at)
  select v.token_id, v.event_id, gen_random_uuid(), v.at from v
  where v.token_id is not null and ${PRINCIPAL_CURRENT}
  on conflict (token_id, event_id) do update set delivery_id = excluded.delivery_id, created_at = excluded.created_at
    where delivery_keys.created_at < excluded.created_at - interval '1 day'
      and not exists (select 1 from deliveries x where x.id = delivery_keys.delivery_id and x.created_at = delivery_keys.created_at)
  returning token_id, event_id, delivery_id, created_at
), dn as (
  insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone,
    title, summary, markdown_body, markdown_body_rendering, external_url, external_status, external_status_at, actor, labels,
    actions, recipient_hint, recipient, locale, occurred_at, created_at, last_event_at, fire_count)
  select k.delivery_id, v.token_id, v.integrator_id, v.recipient_user_id, v.project_id, v.event_id, v.event_type, v.severity,
    v.tone, v.title, v.summary, v.markdown_body, v.markdown_body_rendering, v.external_url, v.external_status,
    case when v.external_status is null then null else v.at end, v.actor, v.labels,
    v.actions, v.recipient_hint, v.recipient, v.locale, v.occurred_at, k.created_at, v.at, 1
  from k join v on v.token_id = k.token_id and v.event_id = k.event_id
  returning ${DELIVERY_COLUMNS}, markdown_body, last_event_at as at, external_status_at, true as inserted
), ${REPEAT_UPDATE('du', true)}, d as (
  select * from dn union all select * from du
), tc as (
  insert into token_daily_counts as c (token_id, day, count)
  select d.token_id, ?::date, count(*)::int from d where d.inserted group by d.token_id order by d.token_id
  on conflict (token_id, day) do update set count = c.count + excluded.count
  returning c.token_id, c.count
)${hold ? held : inbox}, a as (
  insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
  select gen_random_uuid(), case when d.inserted then 'inbound.event.received' else 'inbound.event.deduped' end, v.source,
    d.recipient_user_id, d.token_id, 'delivery', d.id::text, v.request_id,
    jsonb_build_object('event_type', d.event_type, 'event_id', d.event_id, 'severity', d.severity, 'fire_count', d.fire_count,
      'degraded', coalesce(lim.token_over or lim.user_over, false)),
    d.at
  from d join v on v.token_id = d.token_id and v.event_id = d.event_id left join lim on lim.id = d.id
)
select ${columnsOf('d')}, d.inserted, coalesce(lim.token_over or lim.user_over, false) as degraded, ${hold ? 'false' : 'exists (select 1 from o where o.delivery_id = d.id)'} as pushed
from d left join lim on lim.id = d.id`;
}

/**
 * The statement text of `kind` for `items` rows, with the rows it is written for. Padded to a
 * power of two with all-NULL rows (they match nothing): a few statement texts, each prepared and
 * planned once per pooled connection, whatever the batch size. Those up to 128 rows are made as the
 * module loads (STATEMENT_TEXTS, after the builders); a larger batch gets a text of its own.
 */
function statementFor(kind: string, items: number, build: (rows: number) => string): { sql: string; rows: number } {
  const rows = items <= 128 ? 2 ** Math.ceil(Math.log2(items)) : items;
  const sql = STATEMENT_TEXTS.get(`${kind}:${rows}`) ?? build(rows);
  return { sql, rows };
}

/** The dedup key of a delivery, (token id, event_id), as one string. */
export const dedupKey = (tokenId: string, eventId: string): string => `${tokenId}\u0000${eventId}`;

/** The rows a statement returned, matched to its items by dedup key; undefined when not written. */
function inInputOrder(items: Array<{ item: NewDelivery }>, rows: DeliveryRow[]): Array<DeliveryRow | undefined> {
  if (items.length === 1) return [rows[0]];
  const byKey = new Map(rows.map((r) => [dedupKey(r.token_id, r.event_id), r]));
  return items.map(({ item: n }) => byKey.get(dedupKey(n.tokenId, n.eventId)));
}
const NULL_ROW: null[] = Array.from({ length: 28 }, () => null);
const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Per-delivery context that may differ between the rows of one statement (group commit). */
export interface RowContext {
  now: string;
  source: string;
  requestId: string;
  /** Write only if the caller's rows are still at these versions (an unverified principal). */
  verify?: PrincipalVersions;
}

/** Context shared by every row of one statement. */
export interface SharedUpsertContext {
  day: string;
  hold?: boolean;
}

/**
 * One statement for 1..N deliveries (the publish path and bulk fan-out). The (token_id, event_id)
 * pairs must be distinct within one call. Rows come back matched to the input order.
 */
export async function upsertDeliveries(em: EntityManager, items: NewDelivery[], c: UpsertContext): Promise<DeliveryRow[]> {
  const row: RowContext = { now: c.now, source: c.source, requestId: c.requestId };
  // No row versions to verify: every item comes back.
  return (await writeDeliveries(
    em.getConnection(),
    em.getTransactionContext(),
    items.map((item) => ({ item, row })),
    c,
  )) as DeliveryRow[];
}

/**
 * The statement behind upsertDeliveries, with a context per row: the publish batcher writes the
 * deliveries of concurrent single publishes (each with its own request id, surface and time) in
 * one statement. Besides distinct (token_id, event_id) pairs, rows that must count one by one
 * against a daily limit (same token, same user) must not share a call: the counters are summed
 * per statement. An item whose `verify` versions are out of date comes back undefined (not written).
 */
export async function writeDeliveries(
  conn: Connection,
  trx: Transaction | undefined,
  items: Array<{ item: NewDelivery; row: RowContext }>,
  c: SharedUpsertContext,
): Promise<Array<DeliveryRow | undefined>> {
  const rows = await writeOnce(conn, trx, items, c);
  // A row neither inserted nor updated lost a race for its key: a concurrent statement inserted
  // the key after this one began and committed while this one waited on it (`on conflict`), so
  // neither the key nor its delivery is in this statement's snapshot. Written again,
  // it is a repeat. A row not written the second time had an out-of-date principal.
  const lost = rows.flatMap((r, i) => (r ? [] : [i]));
  if (lost.length === 0) return rows;
  const again = await writeOnce(
    conn,
    trx,
    lost.map((i) => items[i]!),
    c,
  );
  lost.forEach((i, j) => {
    rows[i] = again[j];
  });
  return rows;
}

async function writeOnce(
  conn: Connection,
  trx: Transaction | undefined,
  items: Array<{ item: NewDelivery; row: RowContext }>,
  c: SharedUpsertContext,
): Promise<Array<DeliveryRow | undefined>> {
  const hold = c.hold === true;
  const { sql, rows: size } = statementFor(hold ? 'held' : 'inbox', items.length, (rows) => upsertSql(rows, hold));
  const params: unknown[] = [];
  for (const { item: n, row: r } of items) {
    params.push(
      n.tokenId,
      n.integratorId,
      n.recipientUserId,
      n.projectId,
      n.eventId,
      n.eventType,
      n.severity,
      n.tone,
      n.title,
      n.summary,
      n.markdownBody,
      n.markdownBodyRendering,
      n.externalUrl,
      n.externalStatus,
      json(n.actor),
      json(n.labels),
      json(n.actions),
      json(n.recipientHint),
      json(n.recipient),
      n.locale,
      n.occurredAt,
      r.source,
      r.requestId,
      r.now,
      r.verify?.token ?? null,
      r.verify?.user ?? null,
      r.verify?.integrator ?? null,
      searchWords(n),
    );
  }
  for (let i = items.length; i < size; i++) params.push(...NULL_ROW);
  // The days of tc, then (inbox) of uc.
  if (hold) params.push(c.day);
  else params.push(c.day, c.day);
  return inInputOrder(items, (await conn.execute(sql, params, 'all', trx)) as DeliveryRow[]);
}

// A repeat's statement (group commit, rows it expects to be repeats): the update of the existing
// delivery, its inbox row and the `inbound.event.deduped` audit row, and nothing of a new
// delivery's side effects (daily counters, nudge outbox), so none of those tables and indexes is
// opened. A row that finds no delivery (never written, or removed since) or whose principal
// versions are out of date comes back undefined: the caller writes it again with the full
// statement, which decides it as a first arrival (or a stale principal). Same results as the full
// statement gives a repeat: fire_count + 1, external_status kept unless given, last_event_at, the
// inbox row's text and done on resolution, `degraded` and `pushed` false.
const REPEAT_ROW = `(?::uuid, ?::uuid, ?::uuid, ?::varchar, ?::varchar, ?::varchar, ?::text, ?::varchar, ?::varchar, ?::varchar,
  ?::timestamptz, ?::xid, ?::xid, ?::xid, ?::text[])`;
const REPEAT_NULL_ROW: null[] = Array.from({ length: 15 }, () => null);

function repeatSql(rows: number): string {
  return `${PREPARED}
with v (token_id, integrator_id, recipient_user_id, event_id, title, summary, markdown_body, external_status, source, request_id,
        at, token_ver, user_ver, integrator_ver, search_words) as (
  values ${Array.from({ length: rows }, () => REPEAT_ROW).join(',\n')}
), ${REPEAT_UPDATE('d', false)}, ${INBOX_TEXT_UPDATE('')}, a as (
  insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
  select gen_random_uuid(), 'inbound.event.deduped', v.source, d.recipient_user_id, d.token_id, 'delivery', d.id::text, v.request_id,
    jsonb_build_object('event_type', d.event_type, 'event_id', d.event_id, 'severity', d.severity, 'fire_count', d.fire_count, 'degraded', false),
    d.at
  from d join v on v.token_id = d.token_id and v.event_id = d.event_id
)
select ${columnsOf('d')}, d.inserted, false as degraded, false as pushed from d`;
}

/** statementFor's texts: each kind at each padded size up to 128 rows (24 texts, about a millisecond to make). */
const STATEMENT_TEXTS: ReadonlyMap<string, string> = new Map(
  [1, 2, 4, 8, 16, 32, 64, 128].flatMap(
    (rows) =>
      [
        [`inbox:${rows}`, upsertSql(rows, false)],
        [`held:${rows}`, upsertSql(rows, true)],
        [`repeat:${rows}`, repeatSql(rows)],
      ] as const,
  ),
);

/**
 * The repeat statement (see repeatSql) for 1..N rows expected to be repeats, with distinct tokens:
 * rows come back in input order, undefined for a row that was not written (no such delivery, or
 * its `verify` versions are out of date) and goes through writeDeliveries instead.
 */
export async function writeRepeats(conn: Connection, items: Array<{ item: NewDelivery; row: RowContext }>): Promise<Array<DeliveryRow | undefined>> {
  const { sql, rows: size } = statementFor('repeat', items.length, repeatSql);
  const params: unknown[] = [];
  for (const { item: n, row: r } of items) {
    params.push(
      n.tokenId,
      n.integratorId,
      n.recipientUserId,
      n.eventId,
      n.title,
      n.summary,
      n.markdownBody,
      n.externalStatus,
      r.source,
      r.requestId,
      r.now,
      r.verify?.token ?? null,
      r.verify?.user ?? null,
      r.verify?.integrator ?? null,
      searchWords(n),
    );
  }
  for (let i = items.length; i < size; i++) params.push(...REPEAT_NULL_ROW);
  return inInputOrder(items, (await conn.execute(sql, params, 'all')) as DeliveryRow[]);
}

export async function findDelivery(em: EntityManager, id: string): Promise<DeliveryRow | undefined> {
  const rows = (await em
    .getConnection()
    .execute(`select ${DELIVERY_COLUMNS} from deliveries where id = ?`, [id], 'all', em.getTransactionContext())) as DeliveryRow[];
  return rows[0];
}

export interface SupplementRow {
  id: string;
  markdown_body: string;
  created_at: Date | string;
}

export async function listSupplements(em: EntityManager, deliveryId: string): Promise<SupplementRow[]> {
  return (await em
    .getConnection()
    .execute(
      `select id, markdown_body, created_at from delivery_supplements where delivery_id = ? order by created_at, seq`,
      [deliveryId],
      'all',
      em.getTransactionContext(),
    )) as SupplementRow[];
}
