// Named queries for nudge settings (preferences, chat destination, push subscriptions), the
// dispatch context of queued nudges and the dead ones. Plain SQL on the operation's EntityManager.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { DEFAULT_NUDGE_SEVERITIES, type ChatStyle, type NudgeChannel } from './nudge.rules.js';
import { PREPARED, pgArray } from '../sql-hints.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

/** Severities come back as a JS array from pg and PGlite; a text form is parsed defensively. */
const severities = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map(String)
    : typeof v === 'string'
      ? v
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter(Boolean)
      : [...DEFAULT_NUDGE_SEVERITIES];

const DEFAULT_SEVERITIES_SQL = `{${DEFAULT_NUDGE_SEVERITIES.join(',')}}`;

/**
 * The channels (`ch.channel`: push, chat) a nudge about an item of `severity` goes to for the user
 * in `user`, per their preferences: the severities they want pushed, a chat destination that is
 * on, a push subscription. For statements that write outbox rows: `joins` after the row source,
 * `where` among its conditions. The preferences and subscriptions are read through LATERAL ...
 * LIMIT 1: one index probe per row, whatever the tables' sizes were when the statement was planned.
 */
export function nudgeChannelSql(user: string, severity: string): { joins: string; where: string } {
  return {
    joins: `left join lateral (select p.push_severities, p.chat_url, p.chat_enabled from nudge_preferences p where p.user_id = ${user} limit 1) p on true
  left join lateral (select true as has_sub from push_subscriptions s where s.user_id = ${user} limit 1) ps on true
  cross join (values ('push'), ('chat')) as ch (channel)`,
    where: `${severity} = any (coalesce(p.push_severities, '${DEFAULT_SEVERITIES_SQL}'::text[]))
    and case when ch.channel = 'chat' then p.chat_url is not null and p.chat_enabled else ps.has_sub is not null end`,
  };
}

export interface PreferencesRow {
  pushSeverities: string[];
  chatEnabled: boolean;
  chatUrl: string | null;
  chatStyle: ChatStyle | null;
}

export async function getPreferences(em: EntityManager, userId: string): Promise<PreferencesRow> {
  const [r] = await run<{ push_severities: unknown; chat_enabled: boolean; chat_url: string | null; chat_style: string | null }>(
    em,
    `select push_severities, chat_enabled, chat_url, chat_style from nudge_preferences where user_id = ?`,
    [userId],
  );
  if (!r) return { pushSeverities: [...DEFAULT_NUDGE_SEVERITIES], chatEnabled: true, chatUrl: null, chatStyle: null };
  return { pushSeverities: severities(r.push_severities), chatEnabled: r.chat_enabled, chatUrl: r.chat_url, chatStyle: r.chat_style as ChatStyle | null };
}

/** Upserts the fields given; the others keep their stored (or default) values. */
export async function savePreferences(
  em: EntityManager,
  userId: string,
  patch: { pushSeverities?: readonly string[]; chatEnabled?: boolean; chat?: { url: string; style: ChatStyle } | null },
  now: Date,
): Promise<void> {
  const cur = await getPreferences(em, userId);
  const next = {
    sev: patch.pushSeverities ?? cur.pushSeverities,
    enabled: patch.chatEnabled ?? cur.chatEnabled,
    url: patch.chat === undefined ? cur.chatUrl : (patch.chat?.url ?? null),
    style: patch.chat === undefined ? cur.chatStyle : (patch.chat?.style ?? null),
  };
  await run(
    em,
    `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at)
     values (?, ?::text[], ?, ?, ?, ?)
     on conflict (user_id) do update set push_severities = excluded.push_severities, chat_enabled = excluded.chat_enabled,
       chat_url = excluded.chat_url, chat_style = excluded.chat_style, updated_at = excluded.updated_at`,
    [userId, pgArray(next.sev), next.enabled, next.url, next.style, now.toISOString()],
  );
}

export interface PushSubscriptionRow {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * Stores one subscription of the user. The same endpoint again refreshes its keys (a browser
 * re-subscribing) and removes nothing; a new endpoint first removes the user's oldest subscriptions
 * (by registration time) beyond the newest `max - 1`, so the user keeps at most `max`. Serialised per
 * user (a transaction-scoped advisory lock): two browsers registering at once cannot both see room.
 */
export async function savePushSubscription(
  em: EntityManager,
  userId: string,
  s: { endpoint: string; p256dh: string; auth: string },
  now: Date,
  max: number,
): Promise<{ id: string; replacedIds: string[] }> {
  await run(em, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`push-subscriptions:${userId}`]);
  const [existing] = await run<{ id: string }>(em, `update push_subscriptions set p256dh = ?, auth = ? where user_id = ? and endpoint = ? returning id`, [
    s.p256dh,
    s.auth,
    userId,
    s.endpoint,
  ]);
  if (existing) return { id: existing.id, replacedIds: [] };
  const replaced = await run<{ id: string }>(
    em,
    `delete from push_subscriptions where id in (
       select id from push_subscriptions where user_id = ? order by created_at desc, id desc offset ?)
     returning id`,
    [userId, Math.max(0, max - 1)],
  );
  const [r] = await run<{ id: string }>(
    em,
    `insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) values (gen_random_uuid(), ?, ?, ?, ?, ?) returning id`,
    [userId, s.endpoint, s.p256dh, s.auth, now.toISOString()],
  );
  return { id: r!.id, replacedIds: replaced.map((x) => x.id) };
}

export async function deletePushSubscription(em: EntityManager, userId: string, by: { id?: string; endpoint?: string }): Promise<number> {
  const rows = await run<{ id: string }>(em, `delete from push_subscriptions where user_id = ? and (id = ?::uuid or endpoint = ?) returning id`, [
    userId,
    by.id ?? null,
    by.endpoint ?? null,
  ]);
  return rows.length;
}

export async function countPushSubscriptions(em: EntityManager, userId: string): Promise<number> {
  const [r] = await run<{ n: number | string }>(em, `select count(*) as n from push_subscriptions where user_id = ?`, [userId]);
  return Number(r?.n ?? 0);
}

export async function listPushSubscriptions(em: EntityManager, userIds: readonly string[]): Promise<PushSubscriptionRow[]> {
  if (userIds.length === 0) return [];
  return run<PushSubscriptionRow>(em, `select id, user_id, endpoint, p256dh, auth from push_subscriptions where user_id = any(?::uuid[])`, [pgArray(userIds)]);
}

/** A push service answered 404/410: the browser dropped the subscription. */
export async function dropPushSubscription(em: EntityManager, id: string): Promise<void> {
  await run(em, `delete from push_subscriptions where id = ?`, [id]);
}

export interface DispatchContextRow {
  delivery_id: string;
  title: string;
  severity: string;
  notification_id: string | null;
  chat_url: string | null;
  chat_style: string | null;
  chat_enabled: boolean | null;
}

// One unique-index probe per id and per table (LATERAL ... LIMIT 1), whatever the planner believes
// about table sizes: the plain join over `d.id = any(..)` was planned, while the tables grew faster
// than ANALYZE ran, as sequential scans and hashes of deliveries, notifications and
// nudge_preferences on every batch (bench, nudged events: 1.9 million rows read for 28,000 nudges).
const DISPATCH_CONTEXT = `${PREPARED} select d.id as delivery_id, d.title, d.severity, n.id as notification_id, p.chat_url, p.chat_style, p.chat_enabled
   from unnest(?::uuid[]) as k (id)
   cross join lateral (select d.id, d.title, d.severity, d.recipient_user_id from deliveries d where d.id = k.id limit 1) d
   left join lateral (select n.id from notifications n where n.delivery_id = d.id limit 1) n on true
   left join lateral (select p.chat_url, p.chat_style, p.chat_enabled from nudge_preferences p where p.user_id = d.recipient_user_id limit 1) p on true`;

/** What a batch of queued nudges needs to be sent, read at send time (current destination). */
export async function loadDispatchContext(em: EntityManager, deliveryIds: readonly string[]): Promise<Map<string, DispatchContextRow>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await run<DispatchContextRow>(em, DISPATCH_CONTEXT, [pgArray(deliveryIds)]);
  return new Map(rows.map((r) => [r.delivery_id, r]));
}

export async function recordNudgeFailure(
  em: EntityManager,
  f: { deliveryId: string; userId: string; channel: NudgeChannel; attempts: number; error: string },
  now: Date,
): Promise<void> {
  await run(
    em,
    `insert into nudge_failures (id, delivery_id, user_id, channel, attempts, last_error, failed_at) values (gen_random_uuid(), ?, ?, ?, ?, ?, ?)
     on conflict (delivery_id, channel) do update set attempts = excluded.attempts, last_error = excluded.last_error, failed_at = excluded.failed_at`,
    [f.deliveryId, f.userId, f.channel, f.attempts, f.error.slice(0, NUDGE_LIMITS.failureErrorMax), now.toISOString()],
  );
}

export interface FailedNudgeRow {
  delivery_id: string;
  channel: NudgeChannel;
  attempts: number;
  last_error: string;
  failed_at: Date | string;
  title: string | null;
  severity: string | null;
}

export async function listFailedNudges(em: EntityManager, userId: string, limit: number): Promise<FailedNudgeRow[]> {
  return run<FailedNudgeRow>(
    em,
    `select f.delivery_id, f.channel, f.attempts, f.last_error, f.failed_at, d.title, d.severity
       from nudge_failures f left join deliveries d on d.id = f.delivery_id
      where f.user_id = ? order by f.failed_at desc limit ?`,
    [userId, limit],
  );
}

export async function getServiceKey(em: EntityManager, name: string): Promise<{ publicKey: string } | null> {
  const [r] = await run<{ public_key: string }>(em, `select public_key from service_keys where name = ?`, [name]);
  return r ? { publicKey: r.public_key } : null;
}
