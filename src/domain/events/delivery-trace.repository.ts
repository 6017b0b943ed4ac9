// Named queries for a delivery's trace (delivery-trace.rules.ts): every read is an index probe by
// the delivery id (or the recipient), or a walk of the sending token's audit rows within the
// delivery's times (audit_log's one index is (token_id, created_at); an index on its target would
// cost every publish an index insert).
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { AUDIT } from '../audit/audit.js';
import { AUDIT_ACTION_CLICKED } from '../actions/click-action.js';
import { DEFAULT_NUDGE_SEVERITIES } from '../nudges/nudge.rules.js';
import { TRACE_CLICKS_MAX, TRACE_REFIRES_MAX, type TraceFacts } from './delivery-trace.rules.js';

type Ts = Date | string;
const json = (v: unknown): Record<string, unknown> =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : ((v ?? {}) as Record<string, unknown>);
const severities = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map(String)
    : String(v ?? '')
        .replace(/^\{|\}$/g, '')
        .split(',')
        .filter(Boolean);

export interface TraceDeliveryRow {
  id: string;
  token_id: string;
  recipient_user_id: string;
  severity: string;
  fire_count: number;
  created_at: Ts;
  resolved_at: Ts | null;
  external_status: string | null;
  external_status_at: Ts | null;
}

export async function findTraceDelivery(em: EntityManager, id: string): Promise<TraceDeliveryRow | undefined> {
  const [r] = await run<TraceDeliveryRow>(
    em,
    `select id, token_id, recipient_user_id, severity, fire_count, created_at, resolved_at, external_status, external_status_at
       from deliveries where id = ?`,
    [id],
  );
  return r;
}

/** Everything but the delivery row itself, for buildTrace. */
export async function loadTraceFacts(em: EntityManager, d: TraceDeliveryRow): Promise<Omit<TraceFacts, 'delivery'>> {
  // The sending token's audit rows about this delivery, walked on audit_log's (token_id, created_at)
  // index within the delivery's own times (its row, `x`, gives them exactly): the received row at
  // the first arrival (one probe), the latest re-fires back from the last arrival (a walk of the
  // token's rows until 20 match, at worst back to the first arrival) and the latest action clicks
  // (the same walk, from now).
  const audit = await run<{ action: string; created_at: Ts; summary: unknown }>(
    em,
    `with x as materialized (select id::text as target_id, token_id, created_at, last_event_at from deliveries where id = ?)
     (select a.action, a.created_at, a.summary from x join audit_log a on a.token_id = x.token_id and a.created_at = x.created_at
       where a.target_type = 'delivery' and a.target_id = x.target_id and a.action = ? limit 1)
     union all
     (select a.action, a.created_at, a.summary from x join audit_log a
         on a.token_id = x.token_id and a.created_at > x.created_at and a.created_at <= x.last_event_at
       where a.target_type = 'delivery' and a.target_id = x.target_id and a.action = ? order by a.created_at desc limit ?)
     union all
     (select a.action, a.created_at, a.summary from x join audit_log a on a.token_id = x.token_id and a.created_at >= x.created_at
       where a.target_type = 'delivery' and a.target_id = x.target_id and a.action = ? order by a.created_at desc limit ?)`,
    [d.id, AUDIT.eventReceived, AUDIT.eventDeduped, TRACE_REFIRES_MAX, AUDIT_ACTION_CLICKED, TRACE_CLICKS_MAX],
  );
  const [inbox] = await run<{ created_at: Ts }>(em, `select created_at from notifications where delivery_id = ?`, [d.id]);
  const [moderation] = await run<{ created_at: Ts; forwarded_at: Ts | null }>(
    em,
    `select created_at, forwarded_at from moderation_queue where delivery_id = ?`,
    [d.id],
  );
  const supplements = await run<{ created_at: Ts }>(em, `select created_at from delivery_supplements where delivery_id = ? order by created_at, seq`, [d.id]);
  // What the nudge worker and the quiet hours summary recorded, and holds not summed up yet. Only
  // the first arrival's quiet hours holds (held at its time): a later one is a snoozed row coming
  // back, which would tell when the person snoozed it.
  const nudges = await run<{ at: Ts; step: string; channel: string | null; detail: unknown }>(
    em,
    `select at, id, step, channel, detail from delivery_trace
       where delivery_id = ? and (step <> 'nudge_held' or detail->>'reason' <> 'quiet_hours'
         or at = (select created_at from deliveries where id = ?))
     union all
     select held_at, null, 'nudge_held', null, jsonb_build_object('reason', 'quiet_hours') from nudge_held
       where user_id = ? and delivery_id = ? and held_at = (select created_at from deliveries where id = ?)
     order by 1, 2 nulls first`,
    [d.id, d.id, d.recipient_user_id, d.id, d.id],
  );
  const dead = await run<{ channel: string; attempts: number; last_error: string; failed_at: Ts }>(
    em,
    `select channel, attempts, last_error, failed_at from nudge_failures where delivery_id = ?`,
    [d.id],
  );
  const [s] = await run<{ threshold: string; push_severities: unknown; chat_open: boolean | null; push_open: boolean }>(
    em,
    `select t.nudge_threshold as threshold, p.push_severities, (p.chat_url is not null and p.chat_enabled) as chat_open,
            exists (select 1 from push_subscriptions s where s.user_id = ?) as push_open
       from inbound_tokens t left join nudge_preferences p on p.user_id = ? where t.id = ?`,
    [d.recipient_user_id, d.recipient_user_id, d.token_id],
  );
  const received = audit.find((a) => a.action === AUDIT.eventReceived);
  return {
    degraded: json(received?.summary).degraded === true,
    refires: audit.filter((a) => a.action === AUDIT.eventDeduped).map((a) => a.created_at),
    inboxRowAt: inbox?.created_at ?? null,
    moderation: moderation ?? null,
    supplements: supplements.map((x) => x.created_at),
    nudgeSteps: nudges.map((n) => ({ at: n.at, step: n.step, channel: n.channel, detail: json(n.detail) })),
    deadNudges: dead.map((x) => ({ ...x, attempts: Number(x.attempts) })),
    clicks: audit.filter((a) => a.action === AUDIT_ACTION_CLICKED).map((a) => ({ at: a.created_at, summary: json(a.summary) })),
    settings: {
      threshold: s?.threshold ?? 'all',
      pushSeverities: s?.push_severities == null ? DEFAULT_NUDGE_SEVERITIES : severities(s.push_severities),
      chatOpen: s?.chat_open === true,
      pushOpen: s?.push_open === true,
    },
  };
}
