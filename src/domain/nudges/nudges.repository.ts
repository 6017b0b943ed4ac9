// Named queries for nudge settings (preferences, chat destination, push subscriptions, quiet
// hours), the dispatch context of queued nudges, the held nudges of quiet hours and their summary,
// and the dead ones. Plain SQL on the operation's EntityManager.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { DEFAULT_NUDGE_SEVERITIES, THRESHOLD_SEVERITIES, type ChatStyle, type NudgeChannel } from './nudge.rules.js';
import { PREPARED, pgArray } from '../sql-hints.js';
import { NUDGE_LIMITS } from './nudges.limits.js';
import { NUDGE_THRESHOLDS } from '../tokens/tokens.limits.js';
import { SEVERITIES } from '../events/event.limits.js';
import { deliveryOf } from '../inbox/inbox-view.repository.js';
import { QUIET_HOURS_PASS, type HeldCounts, type QuietHours } from './quiet-hours.rules.js';

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

/**
 * SQL: the `lease_until` of a parked outbox row (any reason but `event`), written with it and kept
 * until the row is deleted. The previous release's claim (`lease_until is null or lease_until <
 * now()`, no `reason`) would send such a row as an arrival: it never selects this value. This
 * release leases parked rows through `parked_lease_until` instead (infra/queue/nudge-queue.ts;
 * docs/migrations.md "Nudge outbox: parked rows").
 */
export const PARKED_OUTBOX_LEASE = `'infinity'::timestamptz`;

const DEFAULT_SEVERITIES_SQL = `{${DEFAULT_NUDGE_SEVERITIES.join(',')}}`;
// Constants inlined into fixed SQL text (plain words, no apostrophes).
const words = (ws: readonly string[]) => ws.map((w) => `'${w}'`).join(', ');

/**
 * SQL: is the instant `at` inside the quiet hours of the nudge_preferences row `p`? False without
 * quiet hours. The rule of quiet-hours.rules.ts isQuietAt on the wall clock `at time zone` gives
 * (the zone's rules, DST days included); the CASE evaluates nothing more for a user without quiet
 * hours.
 */
export function quietAtSql(at: string, p: string): string {
  const local = `(${at} at time zone ${p}.quiet_tz)`;
  const t = `${local}::time`;
  const dow = `extract(isodow from ${local})::int`;
  const onDay = (isoDay: string) => `(cardinality(${p}.quiet_days) = 0 or ${isoDay} = any (${p}.quiet_days))`;
  return `(case when ${p}.quiet_tz is null then false
    else (${t} >= ${p}.quiet_start and (${p}.quiet_start >= ${p}.quiet_end or ${t} < ${p}.quiet_end) and ${onDay(dow)})
      or (${p}.quiet_start >= ${p}.quiet_end and ${t} < ${p}.quiet_end and ${onDay(`((${dow} + 5) % 7 + 1)`)}) end)`;
}

/** SQL: does a token whose nudge_threshold is `threshold` let an event of `severity` nudge (nudge.rules.ts THRESHOLD_SEVERITIES)? */
export function tokenThresholdSql(threshold: string, severity: string): string {
  const arms = NUDGE_THRESHOLDS.map((t) => {
    const sev = THRESHOLD_SEVERITIES[t];
    const test = sev.length === 0 ? 'false' : sev.length === SEVERITIES.length ? 'true' : `${severity} in (${words(sev)})`;
    return `when '${t}' then ${test}`;
  });
  return `(case ${threshold} ${arms.join(' ')} else true end)`;
}

/**
 * The channels (`ch.channel`: push, chat) a nudge about an item of `severity` goes to for the user
 * in `user`, per their preferences: the severities they want pushed, a chat destination that is
 * on, a push subscription. For statements that write outbox rows: `joins` after the row source,
 * `where` among its conditions; `held` is true for a nudge held back because `at` is inside the
 * user's quiet hours and the severity does not pass them (nudge_held instead of the outbox). The
 * preferences and subscriptions are read through LATERAL ... LIMIT 1: one index probe per row,
 * whatever the tables' sizes were when the statement was planned.
 */
export function nudgeChannelSql(user: string, severity: string, at: string): { joins: string; where: string; held: string } {
  return {
    joins: channelJoins(user),
    where: `${severity} = any (coalesce(p.push_severities, '${DEFAULT_SEVERITIES_SQL}'::text[]))
    and ${CHANNEL_OPEN}`,
    held: `(${severity} not in (${words(QUIET_HOURS_PASS)}) and ${quietAtSql(at, 'p')})`,
  };
}

const channelJoins = (
  user: string,
) => `left join lateral (select p.push_severities, p.chat_url, p.chat_enabled, p.quiet_start, p.quiet_end, p.quiet_tz, p.quiet_days
      from nudge_preferences p where p.user_id = ${user} limit 1) p on true
  left join lateral (select true as has_sub from push_subscriptions s where s.user_id = ${user} limit 1) ps on true
  cross join (values ('push'), ('chat')) as ch (channel)`;
/** The channel `ch.channel` is open for the user: a chat destination that is on, a push subscription. */
const CHANNEL_OPEN = `case when ch.channel = 'chat' then p.chat_url is not null and p.chat_enabled else ps.has_sub is not null end`;

export interface PreferencesRow {
  pushSeverities: string[];
  chatEnabled: boolean;
  chatUrl: string | null;
  chatStyle: ChatStyle | null;
  quietHours: QuietHours | null;
  doneOnResolution: boolean;
  groupInbox: boolean;
}

interface QuietColumns {
  quiet_start: string | null;
  quiet_end: string | null;
  quiet_tz: string | null;
  quiet_days: unknown;
}

/** `HH:MM:SS` (pg and PGlite read `time` as text) as `HH:MM`. */
const hhmm = (v: string) => v.slice(0, 5);
const smallints = (v: unknown): number[] =>
  Array.isArray(v)
    ? v.map(Number)
    : String(v ?? '')
        .replace(/^\{|\}$/g, '')
        .split(',')
        .filter(Boolean)
        .map(Number);

function quietOf(r: QuietColumns): QuietHours | null {
  if (r.quiet_tz === null || r.quiet_start === null || r.quiet_end === null) return null;
  return { start: hhmm(r.quiet_start), end: hhmm(r.quiet_end), timeZone: r.quiet_tz, days: smallints(r.quiet_days) };
}

export async function getPreferences(em: EntityManager, userId: string): Promise<PreferencesRow> {
  const [r] = await run<
    {
      push_severities: unknown;
      chat_enabled: boolean;
      chat_url: string | null;
      chat_style: string | null;
      done_on_resolution: boolean;
      group_inbox: boolean;
    } & QuietColumns
  >(
    em,
    `select push_severities, chat_enabled, chat_url, chat_style, quiet_start::text, quiet_end::text, quiet_tz, quiet_days, done_on_resolution,
       group_inbox from nudge_preferences where user_id = ?`,
    [userId],
  );
  if (!r)
    return {
      pushSeverities: [...DEFAULT_NUDGE_SEVERITIES],
      chatEnabled: true,
      chatUrl: null,
      chatStyle: null,
      quietHours: null,
      doneOnResolution: false,
      groupInbox: true,
    };
  return {
    pushSeverities: severities(r.push_severities),
    chatEnabled: r.chat_enabled,
    chatUrl: r.chat_url,
    chatStyle: r.chat_style as ChatStyle | null,
    quietHours: quietOf(r),
    doneOnResolution: r.done_on_resolution,
    groupInbox: r.group_inbox,
  };
}

/** Upserts the fields given; the others keep their stored (or default) values. */
export async function savePreferences(
  em: EntityManager,
  userId: string,
  patch: {
    pushSeverities?: readonly string[];
    chatEnabled?: boolean;
    chat?: { url: string; style: ChatStyle } | null;
    quietHours?: QuietHours | null;
    doneOnResolution?: boolean;
    groupInbox?: boolean;
  },
  now: Date,
): Promise<void> {
  const cur = await getPreferences(em, userId);
  const quiet = patch.quietHours === undefined ? cur.quietHours : patch.quietHours;
  const next = {
    sev: patch.pushSeverities ?? cur.pushSeverities,
    enabled: patch.chatEnabled ?? cur.chatEnabled,
    url: patch.chat === undefined ? cur.chatUrl : (patch.chat?.url ?? null),
    style: patch.chat === undefined ? cur.chatStyle : (patch.chat?.style ?? null),
    done: patch.doneOnResolution ?? cur.doneOnResolution,
    group: patch.groupInbox ?? cur.groupInbox,
  };
  await run(
    em,
    `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, quiet_start, quiet_end, quiet_tz, quiet_days,
       done_on_resolution, group_inbox, updated_at)
     values (?, ?::text[], ?, ?, ?, ?::time, ?::time, ?, ?::smallint[], ?, ?, ?)
     on conflict (user_id) do update set push_severities = excluded.push_severities, chat_enabled = excluded.chat_enabled,
       chat_url = excluded.chat_url, chat_style = excluded.chat_style, quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end,
       quiet_tz = excluded.quiet_tz, quiet_days = excluded.quiet_days, done_on_resolution = excluded.done_on_resolution,
       group_inbox = excluded.group_inbox, updated_at = excluded.updated_at`,
    [
      userId,
      pgArray(next.sev),
      next.enabled,
      next.url,
      next.style,
      quiet?.start ?? null,
      quiet?.end ?? null,
      quiet?.timeZone ?? null,
      quiet ? pgArray(quiet.days.map(String)) : null,
      next.done,
      next.group,
      now.toISOString(),
    ],
  );
}

/**
 * PostgreSQL's own spelling of a time zone name, or null when it does not know the zone: the
 * publish statement computes quiet hours with `at time zone`, which fails on a name PostgreSQL's
 * time zone data lacks (it may differ from the JavaScript runtime's).
 */
export async function databaseTimeZone(em: EntityManager, name: string): Promise<string | null> {
  const [r] = await run<{ name: string }>(em, `select name from pg_timezone_names where lower(name) = lower(?) order by name = ? desc limit 1`, [name, name]);
  return r?.name ?? null;
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
   cross join lateral (select d.id, d.title, d.severity, d.recipient_user_id, d.created_at from deliveries d where d.id = k.id limit 1) d
   left join lateral (select n.id from notifications n where ${deliveryOf('n', 'd')} limit 1) n on true
   left join lateral (select p.chat_url, p.chat_style, p.chat_enabled from nudge_preferences p where p.user_id = d.recipient_user_id limit 1) p on true`;

/** What a batch of queued nudges needs to be sent, read at send time (current destination). */
export async function loadDispatchContext(em: EntityManager, deliveryIds: readonly string[]): Promise<Map<string, DispatchContextRow>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await run<DispatchContextRow>(em, DISPATCH_CONTEXT, [pgArray(deliveryIds)]);
  return new Map(rows.map((r) => [r.delivery_id, r]));
}

/** The chat destinations of users (the summary nudges read them at send time, as other nudges do). */
export async function loadChatDestinations(
  em: EntityManager,
  userIds: readonly string[],
): Promise<Map<string, { chat_url: string | null; chat_style: string | null; chat_enabled: boolean }>> {
  if (userIds.length === 0) return new Map();
  const rows = await run<{ user_id: string; chat_url: string | null; chat_style: string | null; chat_enabled: boolean }>(
    em,
    `select user_id, chat_url, chat_style, chat_enabled from nudge_preferences where user_id = any(?::uuid[])`,
    [pgArray(userIds)],
  );
  return new Map(rows.map((r) => [r.user_id, r]));
}

/** A user with held nudges, and their quiet hours now. */
export interface HeldUser {
  userId: string;
  quietHours: QuietHours | null;
}

/** Up to `limit` users with held nudges after `after` (user id order), with their quiet hours. */
export async function listHeldUsers(em: EntityManager, after: string | null, limit: number): Promise<HeldUser[]> {
  const rows = await run<{ user_id: string } & QuietColumns>(
    em,
    `${PREPARED} select h.user_id, p.quiet_start::text, p.quiet_end::text, p.quiet_tz, p.quiet_days
       from (select distinct user_id from nudge_held where user_id > coalesce(?::uuid, '00000000-0000-0000-0000-000000000000'::uuid)) h
       join nudge_preferences p on p.user_id = h.user_id
      order by h.user_id limit ?::int`,
    [after, limit],
  );
  return rows.map((r) => ({ userId: r.user_id, quietHours: quietOf(r) }));
}

export interface QuietSummaryRow {
  user_id: string;
  summary_id: string;
  counts: HeldCounts;
  /** Outbox rows written: the user's open channels (0: nothing to send it to). */
  channels: number;
}

/**
 * Sums up and deletes the held nudges of `userIds` and queues ONE summary nudge per user (reason
 * `summary`, an outbox row per open channel) in the SAME statement. Each user is taken by a lock
 * on their preferences row (`for no key update skip locked`) and only the held rows the statement
 * itself deleted are counted: several processes running this at once give one summary per user.
 * The rows are parked (PARKED_OUTBOX_LEASE): the previous release's claim never selects them.
 */
export async function takeQuietSummaries(em: EntityManager, userIds: readonly string[], now: Date): Promise<QuietSummaryRow[]> {
  return run<QuietSummaryRow>(
    em,
    `${PREPARED} with due as (
  select user_id from nudge_preferences where user_id = any(?::uuid[]) order by user_id for no key update skip locked
), h as (
  delete from nudge_held h using due where h.user_id = due.user_id returning h.user_id, h.delivery_id, h.severity, h.held_at
), ht as (
  insert into delivery_trace (delivery_id, at, step, channel, detail)
  select h.delivery_id, h.held_at, 'nudge_held', null, jsonb_build_object('reason', 'quiet_hours') from h
), c as (
  select user_id, severity, count(*)::int as n from h group by user_id, severity
), s as (
  select user_id, gen_random_uuid() as summary_id, jsonb_object_agg(severity, n) as counts from c group by user_id
), o as (
  insert into nudge_outbox (id, delivery_id, user_id, channel, created_at, reason, summary, lease_until)
  select gen_random_uuid(), s.summary_id, s.user_id, ch.channel, ?::timestamptz, 'summary', s.counts, ${PARKED_OUTBOX_LEASE}
  from s
  ${channelJoins('s.user_id')}
  where ${CHANNEL_OPEN}
  returning user_id
)
select s.user_id, s.summary_id, s.counts, (select count(*)::int from o where o.user_id = s.user_id) as channels from s`,
    [pgArray(userIds), now.toISOString()],
  );
}

/** One step of a delivery's trace (delivery_trace: what a nudge attempt did; get-delivery-trace.ts reads them). */
export interface NudgeTraceRow {
  deliveryId: string;
  at: Date;
  step: 'nudge_sent' | 'nudge_failed' | 'nudge_dead' | 'nudge_held';
  channel: NudgeChannel;
  detail: Record<string, unknown>;
}

/** The trace steps of one dispatched batch, in one statement (the worker's only extra write per batch). */
export async function recordNudgeTrace(em: EntityManager, rows: readonly NudgeTraceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await run(
    em,
    `insert into delivery_trace (delivery_id, at, step, channel, detail)
     select * from unnest(?::uuid[], ?::timestamptz[], ?::varchar[], ?::varchar[], ?::jsonb[])`,
    [
      pgArray(rows.map((r) => r.deliveryId)),
      pgArray(rows.map((r) => r.at.toISOString())),
      pgArray(rows.map((r) => r.step)),
      pgArray(rows.map((r) => r.channel)),
      pgArray(rows.map((r) => JSON.stringify(r.detail))),
    ],
  );
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
