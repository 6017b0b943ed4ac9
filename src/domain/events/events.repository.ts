// Named queries for deliveries. The publish path is one SQL statement (one round trip, one
// implicit transaction): upsert on (token_id, event_id), then either a new inbox row or an
// update of the existing one, plus the audit row. `xmax = 0` tells a fresh insert from a repeat,
// so N concurrent identical posts give one row, fire_count N and exactly one "inserted".
import type { EntityManager } from '@mikro-orm/core';

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
  id: string;
  notificationId: string;
  auditId: string;
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
  now: string;
  source: string;
  requestId: string;
}

const DELIVERY_COLUMNS = `id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title,
  summary, markdown_body, external_url, external_status, locale, recipient_hint, occurred_at, created_at, resolved_at,
  resolution_note, fire_count`;

const UPSERT_SQL = `
with d as (
  insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone,
    title, summary, markdown_body, markdown_body_rendering, external_url, external_status, actor, labels, actions,
    recipient_hint, recipient, locale, occurred_at, created_at, last_event_at, fire_count)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?,
    ?::timestamptz, ?::timestamptz, ?::timestamptz, 1)
  on conflict (token_id, event_id) do update set
    fire_count = deliveries.fire_count + 1,
    external_status = coalesce(excluded.external_status, deliveries.external_status),
    last_event_at = excluded.last_event_at
  returning ${DELIVERY_COLUMNS}, (xmax = 0) as inserted
), n as (
  insert into notifications (id, user_id, type, title, summary, body, delivery_id, target_url, created_at, updated_at)
  select ?, d.recipient_user_id, 'system', ?, ?, ?, d.id, ?, ?::timestamptz, ?::timestamptz from d where d.inserted
  returning id
), nu as (
  update notifications set title = ?, summary = ?, body = ?, updated_at = ?::timestamptz
  from d where not d.inserted and notifications.delivery_id = d.id
  returning notifications.id
), a as (
  insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
  select ?, case when d.inserted then 'inbound.event.received' else 'inbound.event.deduped' end, ?, d.recipient_user_id,
    d.token_id, 'delivery', d.id::text, ?,
    jsonb_build_object('event_type', d.event_type, 'event_id', d.event_id, 'severity', d.severity, 'fire_count', d.fire_count),
    ?::timestamptz
  from d
  returning id
)
select * from d`;

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

export async function upsertDelivery(em: EntityManager, n: NewDelivery): Promise<DeliveryRow> {
  const params = [
    n.id, n.tokenId, n.integratorId, n.recipientUserId, n.projectId, n.eventId, n.eventType, n.severity, n.tone,
    n.title, n.summary, n.markdownBody, n.markdownBodyRendering, n.externalUrl, n.externalStatus, json(n.actor),
    json(n.labels), json(n.actions), json(n.recipientHint), json(n.recipient), n.locale, n.occurredAt, n.now, n.now,
    // n
    n.notificationId, n.title, n.summary, n.markdownBody, n.externalUrl, n.now, n.now,
    // nu
    n.title, n.summary, n.markdownBody, n.now,
    // a
    n.auditId, n.source, n.requestId, n.now,
  ];
  const rows = (await em.getConnection().execute(UPSERT_SQL, params, 'all', em.getTransactionContext())) as DeliveryRow[];
  return rows[0]!;
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
    `select id, markdown_body, created_at from delivery_supplements where delivery_id = ? order by created_at, id`,
    [deliveryId],
    'all',
    em.getTransactionContext(),
  )) as SupplementRow[];
}
