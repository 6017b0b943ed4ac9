// Named queries for deliveries. The publish path is one SQL statement (one round trip, one
// implicit transaction): upsert on (token_id, event_id), then either a new inbox row or an
// update of the existing one, plus the audit row. `xmax = 0` tells a fresh insert from a repeat,
// so N concurrent identical posts give one row, fire_count N and exactly one "inserted".
import type { EntityManager } from '@mikro-orm/core';
import type { InboundEvent } from './event-validation.rules.js';
import { PREPARED } from '../sql-hints.js';

export interface DeliveryRow {
  id: string;
  token_id: string;
  integrator_id: string;
  recipient_user_id: string;
  project_id: string | null;
  event_id: string;
  event_type: string;
  severity: string;
  tone: string | null;
  title: string;
  summary: string | null;
  markdown_body: string | null;
  external_url: string | null;
  external_status: string | null;
  locale: string | null;
  recipient_hint: unknown;
  occurred_at: Date | string;
  created_at: Date | string;
  resolved_at: Date | string | null;
  resolution_note: string | null;
  fire_count: number;
  inserted?: boolean;
}

export interface NewDelivery {
  tokenId: string;
  integratorId: string;
  recipientUserId: string;
  projectId: string | null;
  eventId: string;
  eventType: string;
  severity: string;
  tone: string | null;
  title: string;
  summary: string | null;
  markdownBody: string | null;
  markdownBodyRendering: string | null;
  externalUrl: string | null;
  externalStatus: string | null;
  actor: unknown;
  labels: unknown;
  actions: unknown;
  recipientHint: unknown;
  recipient: unknown;
  locale: string | null;
  occurredAt: string;
}

/** The stored shape of an accepted InboundEvent for one recipient token. */
export function newDelivery(
  ev: InboundEvent,
  to: { tokenId: string; integratorId: string; recipientUserId: string; projectId: string | null },
): NewDelivery {
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
  source: string;
  requestId: string;
}

const DELIVERY_COLUMNS = `id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title,
  summary, markdown_body, external_url, external_status, locale, recipient_hint, occurred_at, created_at, resolved_at,
  resolution_note, fire_count`;

// Every placeholder is cast: a VALUES list takes its column types from the casts, and a NULL
// in the first row must not turn a uuid/jsonb column into text.
const VALUE_ROW = `(?::uuid, ?::uuid, ?::uuid, ?::uuid, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar,
  ?::text, ?::varchar, ?::varchar, ?::varchar, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::varchar, ?::timestamptz)`;

function upsertSql(rows: number): string {
  return `${PREPARED}
with v (token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title, summary,
        markdown_body, markdown_body_rendering, external_url, external_status, actor, labels, actions, recipient_hint,
        recipient, locale, occurred_at) as (
  values ${Array.from({ length: rows }, () => VALUE_ROW).join(',\n')}
), d as (
  insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone,
    title, summary, markdown_body, markdown_body_rendering, external_url, external_status, actor, labels, actions,
    recipient_hint, recipient, locale, occurred_at, created_at, last_event_at, fire_count)
  select gen_random_uuid(), v.*, ?::timestamptz, ?::timestamptz, 1 from v
  on conflict (token_id, event_id) do update set
    fire_count = deliveries.fire_count + 1,
    external_status = coalesce(excluded.external_status, deliveries.external_status),
    last_event_at = excluded.last_event_at
  returning ${DELIVERY_COLUMNS}, (xmax = 0) as inserted
), n as (
  insert into notifications (id, user_id, type, title, summary, body, delivery_id, target_url, created_at, updated_at)
  select gen_random_uuid(), d.recipient_user_id, 'system', d.title, d.summary, d.markdown_body, d.id, d.external_url,
    ?::timestamptz, ?::timestamptz
  from d where d.inserted
), nu as (
  update notifications set title = v.title, summary = v.summary, body = v.markdown_body, updated_at = ?::timestamptz
  from d join v on v.token_id = d.token_id and v.event_id = d.event_id
  where not d.inserted and notifications.delivery_id = d.id
), a as (
  insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
  select gen_random_uuid(), case when d.inserted then 'inbound.event.received' else 'inbound.event.deduped' end, ?,
    d.recipient_user_id, d.token_id, 'delivery', d.id::text, ?,
    jsonb_build_object('event_type', d.event_type, 'event_id', d.event_id, 'severity', d.severity, 'fire_count', d.fire_count),
    ?::timestamptz
  from d
)
select * from d`;
}

const SQL_CACHE = new Map<number, string>();
const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * One statement for 1..N deliveries (the publish path and bulk fan-out). The (token_id, event_id)
 * pairs must be distinct within one call. Rows come back matched to the input order.
 */
export async function upsertDeliveries(em: EntityManager, items: NewDelivery[], c: UpsertContext): Promise<DeliveryRow[]> {
  let sql = SQL_CACHE.get(items.length);
  if (!sql) {
    sql = upsertSql(items.length);
    if (items.length <= 100) SQL_CACHE.set(items.length, sql);
  }
  const params: unknown[] = [];
  for (const n of items) {
    params.push(
      n.tokenId, n.integratorId, n.recipientUserId, n.projectId, n.eventId, n.eventType, n.severity, n.tone, n.title,
      n.summary, n.markdownBody, n.markdownBodyRendering, n.externalUrl, n.externalStatus, json(n.actor), json(n.labels),
      json(n.actions), json(n.recipientHint), json(n.recipient), n.locale, n.occurredAt,
    );
  }
  params.push(c.now, c.now, c.now, c.now, c.now, c.source, c.requestId, c.now);
  const rows = (await em.getConnection().execute(sql, params, 'all', em.getTransactionContext())) as DeliveryRow[];
  if (items.length === 1) return rows;
  const byKey = new Map(rows.map((r) => [`${r.token_id}\u0000${r.event_id}`, r]));
  return items.map((n) => byKey.get(`${n.tokenId}\u0000${n.eventId}`)!);
}

export async function findDelivery(em: EntityManager, id: string): Promise<DeliveryRow | undefined> {
  const rows = (await em.getConnection().execute(
    `select ${DELIVERY_COLUMNS} from deliveries where id = ?`,
    [id],
    'all',
    em.getTransactionContext(),
  )) as DeliveryRow[];
  return rows[0];
}

export interface SupplementRow {
  id: string;
  markdown_body: string;
  created_at: Date | string;
}

export async function listSupplements(em: EntityManager, deliveryId: string): Promise<SupplementRow[]> {
  return (await em.getConnection().execute(
    `select id, markdown_body, created_at from delivery_supplements where delivery_id = ? order by created_at, seq`,
    [deliveryId],
    'all',
    em.getTransactionContext(),
  )) as SupplementRow[];
}
