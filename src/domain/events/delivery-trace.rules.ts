// The delivery trace (docs/contract.md "Delivery trace"): what the service did with one delivery,
// oldest first, assembled from the rows that already record it. It says what the service did,
// never what the person did: no read, seen, done or snooze times, and no nudge sent because a
// snoozed row came back (its time would tell when the person snoozed it).
import { z } from 'zod';
import { iso } from '../timestamps.js';
import { THRESHOLD_SEVERITIES, type NudgeThreshold } from '../nudges/nudge.rules.js';
import { TERMINAL_EXTERNAL_STATUSES } from './event.limits.js';

export const TRACE_STEPS = [
  'accepted',
  'refired',
  'inbox_row',
  'held_for_moderation',
  'forwarded',
  'degraded',
  'nudge_sent',
  'nudge_failed',
  'nudge_dead',
  'nudge_held',
  'resolved',
  'supplemented',
  'action_clicked',
] as const;
export type TraceStepName = (typeof TRACE_STEPS)[number];
/** The daily limit that degraded a delivery (SPEC Limits). */
export const TRACE_LIMITS = ['token_daily', 'user_daily'] as const;
/** Why a nudge was held back. */
export const NUDGE_HOLD_REASONS = ['quiet_hours', 'threshold', 'preference', 'no_channel', 'degraded'] as const;
export const TRACE_CHANNELS = ['push', 'chat'] as const;
/** Re-fires listed in a trace (the latest ones; fireCount counts them all). */
export const TRACE_REFIRES_MAX = 20;
/** Action clicks listed in a trace (the latest ones). */
export const TRACE_CLICKS_MAX = 50;

export const TraceStepSchema = z.strictObject({
  at: z.iso.datetime(),
  step: z.enum(TRACE_STEPS),
  /** nudge_*: the channel; absent on a hold that applies to every channel of the delivery. */
  channel: z.enum(TRACE_CHANNELS).optional(),
  /** degraded: the daily limit that applied. */
  limit: z.enum(TRACE_LIMITS).optional(),
  /** nudge_held: why. */
  reason: z.enum(NUDGE_HOLD_REASONS).optional(),
  /** nudge_sent / nudge_failed / nudge_dead: the attempt (1 = the first). */
  attempt: z.number().int().min(1).optional(),
  /** nudge_failed / nudge_dead / action_clicked: the receiver's HTTP status, when it answered. */
  status: z.number().int().min(100).max(599).optional(),
  /** nudge_failed / nudge_dead / action_clicked: why there was no HTTP answer (e.g. timeout, network_error, blocked_target). */
  error: z.string().optional(),
  /** nudge_failed: the earliest time of the next attempt (exact for the first retry; later ones add jitter). */
  nextRetryAt: z.iso.datetime().nullable().optional(),
  /** action_clicked: which action button. */
  actionIndex: z.number().int().min(0).optional(),
  actionLabel: z.string().optional(),
});
export type TraceStep = z.infer<typeof TraceStepSchema>;

type Ts = Date | string;

/** The facts a trace is made of, as the repository reads them. */
export interface TraceFacts {
  delivery: { created_at: Ts; severity: string; fire_count: number; resolved_at: Ts | null; external_status: string | null; external_status_at: Ts | null };
  /** The `inbound.event.received` audit row's `degraded`. */
  degraded: boolean;
  /** `inbound.event.deduped` audit rows (the latest TRACE_REFIRES_MAX). */
  refires: Ts[];
  inboxRowAt: Ts | null;
  moderation: { created_at: Ts; forwarded_at: Ts | null } | null;
  supplements: Ts[];
  /** delivery_trace rows (nudge worker, quiet hours summary) and still-held nudge_held rows. */
  nudgeSteps: Array<{ at: Ts; step: string; channel: string | null; detail: Record<string, unknown> | null }>;
  /** nudge_failures rows (dead nudges recorded before the trace existed). */
  deadNudges: Array<{ channel: string; attempts: number; last_error: string; failed_at: Ts }>;
  /** `inbound.action.clicked` audit summaries (the latest TRACE_CLICKS_MAX). */
  clicks: Array<{ at: Ts; summary: Record<string, unknown> }>;
  /** The recipient's nudge settings now (see heldReasons). */
  settings: { threshold: string; pushSeverities: readonly string[]; chatOpen: boolean; pushOpen: boolean };
}

const ms = (v: Ts) => new Date(v).getTime();

export function buildTrace(f: TraceFacts): TraceStep[] {
  const created = iso(f.delivery.created_at);
  const steps: TraceStep[] = [{ at: created, step: 'accepted' }];
  for (const at of f.refires) steps.push({ at: iso(at), step: 'refired' });
  if (f.moderation) {
    steps.push({ at: iso(f.moderation.created_at), step: 'held_for_moderation' });
    if (f.moderation.forwarded_at !== null) steps.push({ at: iso(f.moderation.forwarded_at), step: 'forwarded' });
  } else if (f.inboxRowAt !== null) steps.push({ at: iso(f.inboxRowAt), step: 'inbox_row' });
  if (f.degraded) {
    // The publish statement writes no inbox row over the per-user limit; over the token's limit it
    // does (a held delivery never counts against the per-user limit). Both over: the per-user one.
    steps.push({ at: created, step: 'degraded', limit: f.moderation === null && f.inboxRowAt === null ? 'user_daily' : 'token_daily' });
    if (f.moderation === null) steps.push({ at: created, step: 'nudge_held', reason: 'degraded' });
  }
  if (!f.degraded && f.moderation === null) for (const h of heldReasons(f)) steps.push({ at: created, step: 'nudge_held', ...h });
  const deadRecorded = new Set<string>();
  for (const s of f.nudgeSteps) {
    const step = nudgeStep(s);
    if (!step) continue;
    if (step.step === 'nudge_dead' && step.channel) deadRecorded.add(step.channel);
    steps.push(step);
  }
  for (const d of f.deadNudges) {
    if (deadRecorded.has(d.channel) || !isChannel(d.channel)) continue;
    const m = /HTTP (\d{3})/.exec(d.last_error);
    steps.push({ at: iso(d.failed_at), step: 'nudge_dead', channel: d.channel, attempt: d.attempts, ...(m ? { status: Number(m[1]) } : { error: 'error' }) });
  }
  if (f.delivery.resolved_at !== null) steps.push({ at: iso(f.delivery.resolved_at), step: 'resolved' });
  for (const at of f.supplements) steps.push({ at: iso(at), step: 'supplemented' });
  for (const c of f.clicks) {
    const s = c.summary;
    const status = Number(s.status ?? 0);
    steps.push({
      at: iso(c.at),
      step: 'action_clicked',
      actionIndex: Number(s.action_index ?? 0),
      actionLabel: String(s.action_label ?? ''),
      ...(status >= 100 ? { status } : { error: typeof s.error === 'string' ? s.error : 'network_error' }),
    });
  }
  // Stable: steps of the same instant keep the order above (accepted before what followed it).
  return steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => ms(a.s.at) - ms(b.s.at) || a.i - b.i)
    .map(({ s }) => s);
}

const isChannel = (c: unknown): c is (typeof TRACE_CHANNELS)[number] => c === 'push' || c === 'chat';

function nudgeStep(s: TraceFacts['nudgeSteps'][number]): TraceStep | null {
  const d = s.detail ?? {};
  const base: TraceStep = { at: iso(s.at), step: s.step as TraceStepName };
  if (isChannel(s.channel)) base.channel = s.channel;
  switch (s.step) {
    case 'nudge_held':
      return NUDGE_HOLD_REASONS.includes(d.reason as never) ? { ...base, reason: d.reason as TraceStep['reason'] } : null;
    case 'nudge_sent':
      return { ...base, attempt: Number(d.attempt ?? 1) };
    case 'nudge_failed':
    case 'nudge_dead': {
      const out: TraceStep = { ...base, attempt: Number(d.attempt ?? 1) };
      if (typeof d.status === 'number') out.status = d.status;
      else out.error = typeof d.error === 'string' ? d.error : 'network_error';
      if (s.step === 'nudge_failed') out.nextRetryAt = typeof d.next_retry_at === 'string' ? iso(d.next_retry_at) : null;
      return out;
    }
    default:
      return null;
  }
}

/**
 * Why a delivery (neither degraded nor held for moderation) was not nudged where nothing recorded
 * it, re-read from the settings NOW (the publish statement records no reason, and recording one
 * would cost every publish): with no nudge activity at all, the token's nudge threshold, then the
 * recipient's severities; then each channel nothing was recorded for and that has no destination.
 * Settings changed since the arrival can make this differ from what applied then (docs/contract.md
 * says so). A terminal external status at the first arrival nudges nobody and gives no reason.
 */
function heldReasons(f: TraceFacts): Array<Pick<TraceStep, 'reason' | 'channel'>> {
  const d = f.delivery;
  const terminalAtArrival =
    d.external_status !== null &&
    (TERMINAL_EXTERNAL_STATUSES as readonly string[]).includes(d.external_status) &&
    d.external_status_at !== null &&
    ms(d.external_status_at) === ms(d.created_at);
  if (terminalAtArrival) return [];
  const tried = new Set<string | null>([...f.nudgeSteps.map((s) => s.channel), ...f.deadNudges.map((x) => x.channel)]);
  if (tried.size === 0) {
    const allowed = THRESHOLD_SEVERITIES[f.settings.threshold as NudgeThreshold] ?? THRESHOLD_SEVERITIES.all;
    if (!(allowed as readonly string[]).includes(d.severity)) return [{ reason: 'threshold' }];
    if (!f.settings.pushSeverities.includes(d.severity)) return [{ reason: 'preference' }];
  }
  const out: Array<Pick<TraceStep, 'reason' | 'channel'>> = [];
  if (!f.settings.pushOpen && !tried.has('push')) out.push({ reason: 'no_channel', channel: 'push' });
  if (!f.settings.chatOpen && !tried.has('chat')) out.push({ reason: 'no_channel', channel: 'chat' });
  return out;
}
