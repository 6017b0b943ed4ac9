// Sends a batch of queued nudges (the job queue's worker calls this; no principal, no transport).
// Content is read at send time: title, severity and the inbox link of the delivery, to the user's
// current chat destination and push subscriptions; a quiet hours summary says what was held back
// and links the inbox. Each job ends completed, failed (the queue retries it with backoff) or dead
// (recorded in nudge_failures, visible through ListFailedNudges).
import type { EntityManager } from '@mikro-orm/core';
import type { Clock, Logger } from '../context.js';
import {
  chatPayload,
  inboxLink,
  nudgeId,
  nudgeTitle,
  pushPayload,
  type ChatStyle,
  type NudgeChannel,
  type NudgeContent,
  type NudgeReason,
} from './nudge.rules.js';
import { isPushServiceEndpoint } from './push-subscription.rules.js';
import {
  dropPushSubscription,
  listPushSubscriptions,
  loadChatDestinations,
  loadDispatchContext,
  recordNudgeFailure,
  recordNudgeTrace,
  type NudgeTraceRow,
  type PushSubscriptionRow,
} from './nudges.repository.js';
import { quietSummarySeverity, quietSummaryText } from './quiet-hours.rules.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

export interface NudgeJob {
  /** Job id (= the outbox row id). */
  id: string;
  deliveryId: string;
  userId: string;
  channel: NudgeChannel;
  /** An arrival (`event`), a snoozed row that came back (`snooze`) or a quiet hours summary (`summary`: deliveryId is the summary's id). */
  reason: NudgeReason;
  /** A summary's held counts per severity. */
  summary?: Readonly<Record<string, number>> | null;
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry follows a failure of this attempt. */
  lastAttempt: boolean;
  /**
   * The least time (seconds) before the next attempt if this one fails: exact for the first retry,
   * a lower bound for later ones (the queue adds jitter). Absent: not known.
   */
  retryInSeconds?: number;
}

export type NudgeOutcome = { id: string; status: 'completed' } | { id: string; status: 'failed' | 'dead'; error: string };

/** status 0 = no HTTP answer (error says why). */
export interface SendResult {
  status: number;
  ok: boolean;
  error?: string;
}

/** Ports implemented in infra/chat and infra/push (SSRF-guarded egress). */
export interface ChatSender {
  send(url: string, payload: Record<string, unknown>, idempotencyId: string): Promise<SendResult>;
}
export interface PushSender {
  send(sub: PushSubscriptionRow, payload: string, opts: { idempotencyId: string; topic: string; urgency: 'high' | 'normal' | 'low' }): Promise<SendResult>;
}

export interface DispatchEnv {
  chat: ChatSender;
  push: PushSender;
  /** PUSH_ENDPOINT_ALLOW_HOSTS: push service hosts besides the browsers' own (push-subscription.rules.ts). */
  pushEndpointAllowHosts: readonly string[];
  publicBaseUrl: string;
  clock: Clock;
  log: Logger;
}

/** 4xx other than timeout/too-early/too-many means the receiver will not take it: no retry. */
const permanent = (r: SendResult) => r.error === 'blocked_target' || (r.status >= 400 && r.status < 500 && ![408, 425, 429].includes(r.status));
const describe = (r: SendResult) => (r.status > 0 ? `HTTP ${r.status}` : (r.error ?? 'network_error'));
const URGENCY: Record<string, 'high' | 'normal' | 'low'> = { critical: 'high', warn: 'normal' };

/** `none`: nothing to send it to (no subscription left); `status`: the receiver's HTTP status (0: no answer, `word` says why). */
type Attempt = { ok: true; none?: true } | { ok: false; permanent: boolean; error: string; status: number; word?: string };

/** What the trace keeps of a failed attempt: the HTTP status, or an error word when there was no answer. */
const failureDetail = (a: { status: number; word?: string }): Record<string, unknown> =>
  a.status > 0 ? { status: a.status } : { error: a.word ?? 'network_error' };

/** What one job announces, and where its chat message goes. */
interface Announcement {
  content: NudgeContent;
  chat: { chat_url: string | null; chat_style: string | null; chat_enabled: boolean | null } | undefined;
}

export async function dispatchNudges(em: EntityManager, env: DispatchEnv, jobs: readonly NudgeJob[]): Promise<NudgeOutcome[]> {
  const summaries = jobs.filter((j) => j.reason === 'summary');
  const ctxByDelivery = await loadDispatchContext(em, [...new Set(jobs.filter((j) => j.reason !== 'summary').map((j) => j.deliveryId))]);
  const chatBySummaryUser = await loadChatDestinations(em, [...new Set(summaries.filter((j) => j.channel === 'chat').map((j) => j.userId))]);
  const pushUsers = [...new Set(jobs.filter((j) => j.channel === 'push').map((j) => j.userId))];
  const subsByUser = new Map<string, PushSubscriptionRow[]>();
  for (const s of await listPushSubscriptions(em, pushUsers)) subsByUser.set(s.user_id, [...(subsByUser.get(s.user_id) ?? []), s]);

  const announcement = (job: NudgeJob): Announcement | undefined => {
    if (job.reason === 'summary') {
      const counts = job.summary ?? {};
      return {
        content: { title: quietSummaryText(counts), severity: quietSummarySeverity(counts), url: `${env.publicBaseUrl}/inbox`, tag: job.deliveryId },
        chat: chatBySummaryUser.get(job.userId),
      };
    }
    const c = ctxByDelivery.get(job.deliveryId);
    if (!c) return undefined;
    return {
      content: {
        title: nudgeTitle(job.reason, c.title),
        severity: c.severity,
        url: inboxLink(env.publicBaseUrl, c.notification_id ?? job.deliveryId),
        tag: job.deliveryId,
      },
      chat: c,
    };
  };

  // The delivery trace (get-delivery-trace.ts) keeps what each attempt of a delivery's nudge did; a
  // summary's is not a delivery's.
  const trace: NudgeTraceRow[] = [];
  const step = (job: NudgeJob, s: NudgeTraceRow['step'], detail: Record<string, unknown>, at: Date = env.clock.now()) => {
    if (job.reason !== 'summary') trace.push({ deliveryId: job.deliveryId, at, step: s, channel: job.channel, detail });
  };
  const outcomes = await Promise.all(
    jobs.map(async (job): Promise<NudgeOutcome> => {
      const said = announcement(job);
      // A delivery that no longer exists has nothing to announce.
      if (!said) return { id: job.id, status: 'completed' };
      const { content, chat: c } = said;
      const idem = nudgeId(job.deliveryId, job.channel, job.reason, job.id);
      let a: Attempt;
      try {
        if (job.channel === 'chat') {
          // Destination cleared or chat turned off since the event: nothing to send.
          if (!c?.chat_url || !c.chat_style || c.chat_enabled === false) {
            step(job, 'nudge_held', { reason: 'no_channel' });
            return { id: job.id, status: 'completed' };
          }
          const r = await env.chat.send(c.chat_url, chatPayload(c.chat_style as ChatStyle, content), idem);
          a = r.ok ? { ok: true } : { ok: false, permanent: permanent(r), error: `chat: ${describe(r)}`, status: r.status, word: r.error };
        } else {
          a = await sendPush(em, env, subsByUser.get(job.userId) ?? [], content, idem, job.deliveryId);
        }
      } catch (err) {
        a = {
          ok: false,
          permanent: false,
          error: `${job.channel}: ${(err as Error).message}`.slice(0, NUDGE_LIMITS.attemptErrorMax),
          status: 0,
          word: 'error',
        };
      }
      if (a.ok) {
        if (a.none) step(job, 'nudge_held', { reason: 'no_channel' });
        else step(job, 'nudge_sent', { attempt: job.attempt });
        return { id: job.id, status: 'completed' };
      }
      if (!a.permanent && !job.lastAttempt) {
        // One reading of the clock: the step's time and its next retry are exactly the delay apart.
        const at = env.clock.now();
        const next = job.retryInSeconds === undefined ? null : new Date(at.getTime() + job.retryInSeconds * 1000).toISOString();
        step(job, 'nudge_failed', { attempt: job.attempt, ...failureDetail(a), next_retry_at: next }, at);
        return { id: job.id, status: 'failed', error: a.error };
      }
      step(job, 'nudge_dead', { attempt: job.attempt, ...failureDetail(a) });
      await recordNudgeFailure(
        em,
        { deliveryId: job.deliveryId, userId: job.userId, channel: job.channel, attempts: job.attempt, error: a.error },
        env.clock.now(),
      );
      env.log.warn({ deliveryId: job.deliveryId, channel: job.channel, attempts: job.attempt, error: a.error }, 'nudge dead after its last attempt');
      return { id: job.id, status: 'dead', error: a.error };
    }),
  );
  // The trace is a record, not part of the send: failing to write it never sends a nudge again.
  await recordNudgeTrace(em, trace).catch((err: Error) => env.log.warn({ err: { message: err.message }, steps: trace.length }, 'nudge trace not recorded'));
  return outcomes;
}

/**
 * One push message per subscription of the user. A 404/410 drops the subscription (the browser
 * unsubscribed). A retry re-sends to every subscription; the Topic header (the delivery id) lets
 * a push service replace a copy it has not delivered yet.
 */
async function sendPush(
  em: EntityManager,
  env: DispatchEnv,
  subs: PushSubscriptionRow[],
  content: NudgeContent,
  idem: string,
  deliveryId: string,
): Promise<Attempt> {
  // A subscription stored before the push service rule, or whose host the operator no longer
  // allows, is dropped unsent: the service only ever POSTs to push services.
  const allowed: PushSubscriptionRow[] = [];
  for (const s of subs) {
    if (isPushServiceEndpoint(s.endpoint, env.pushEndpointAllowHosts)) allowed.push(s);
    else await dropPushSubscription(em, s.id);
  }
  subs = allowed;
  if (subs.length === 0) return { ok: true, none: true };
  const payload = pushPayload(content);
  const opts = { idempotencyId: idem, topic: deliveryId.replaceAll('-', ''), urgency: URGENCY[content.severity] ?? ('low' as const) };
  const results = await Promise.all(subs.map((s) => env.push.send(s, payload, opts)));
  const failures: SendResult[] = [];
  for (const [i, r] of results.entries()) {
    if (r.ok) continue;
    if (r.status === 404 || r.status === 410) await dropPushSubscription(em, subs[i]!.id);
    else failures.push(r);
  }
  if (failures.length === 0) return { ok: true };
  const first = failures[0]!;
  return {
    ok: false,
    permanent: failures.every(permanent),
    error: `push: ${failures.length} of ${subs.length} endpoints failed (${describe(first)})`,
    status: first.status,
    word: first.error,
  };
}
