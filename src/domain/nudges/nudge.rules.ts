// Pure rules of nudges (browser push and chat messages for a new delivery).
// SPEC "What the service does" 1, "Side effects of a new delivery", "Delivery external status",
// Limits (daily notifications per token, inbox notifications per user per day, 00:00 UTC reset).
import { SEVERITIES } from '../events/event.limits.js';
import type { NUDGE_THRESHOLDS } from '../tokens/tokens.limits.js';
import { allowHostSet, egressDecision } from '../egress-policy.rules.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

export type Severity = (typeof SEVERITIES)[number];
export type NudgeThreshold = (typeof NUDGE_THRESHOLDS)[number];
export type NudgeChannel = 'push' | 'chat';
export const CHAT_STYLES = ['slack', 'feishu'] as const;
export type ChatStyle = (typeof CHAT_STYLES)[number];

/**
 * The spec leaves open which severities push. Default: critical and warn nudge (push and chat);
 * info and success only land in the inbox. Each user can change the set (SetPreferences).
 */
export const DEFAULT_NUDGE_SEVERITIES: readonly Severity[] = ['critical', 'warn'];

/** SPEC Limits: inbox notifications per user per day, not adjustable. */
export const MAX_INBOX_PER_USER_PER_DAY = NUDGE_LIMITS.inboxPerUserPerDay;

/** The day the daily counters count in: the UTC date of the service clock (reset at 00:00 UTC). */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);

/** Title, severity and a link: never the markdown body, summary or anything else of the event. */
export interface NudgeContent {
  title: string;
  severity: string;
  /** `${publicBaseUrl}/inbox/<notificationId>` */
  url: string;
  /**
   * The delivery's dedup key (its id: one delivery per token and event_id): the browser
   * notification's `tag`, so a later push for the same delivery replaces the shown one instead of
   * stacking (web/src/sw.ts). Push only; chat messages do not carry it.
   */
  tag: string;
}

/**
 * Why a nudge goes out: an arrival, a snoozed inbox row that came back at its time, or the summary
 * of what was held back during quiet hours (quiet-hours.rules.ts).
 */
export type NudgeReason = 'event' | 'snooze' | 'summary';

/**
 * Receivers dedupe on this id: a job replayed after a crash carries the same one. An arrival's is
 * `<deliveryId>:<channel>`; a snooze's return adds its outbox row id (the same through retries),
 * so each return is a new message and never a duplicate of the arrival; a summary's is
 * `<summaryId>:<channel>:summary` (a new id per summary, shared by its channels).
 */
export const nudgeId = (deliveryId: string, channel: NudgeChannel, reason: NudgeReason = 'event', jobId = ''): string =>
  reason === 'snooze' ? `${deliveryId}:${channel}:snooze:${jobId}` : reason === 'summary' ? `${deliveryId}:${channel}:summary` : `${deliveryId}:${channel}`;

/**
 * The severities each nudge threshold of a token (tokens.limits.ts NUDGE_THRESHOLDS) lets nudge,
 * within those the owner's preferences nudge for.
 */
export const THRESHOLD_SEVERITIES: Readonly<Record<NudgeThreshold, readonly Severity[]>> = {
  all: SEVERITIES,
  warn: ['critical', 'warn'],
  critical: ['critical'],
  never: [],
};

/** The nudge's title: the event's, marked when a snoozed row came back. */
export const nudgeTitle = (reason: NudgeReason, title: string): string => (reason === 'snooze' ? `Back from snooze: ${title}` : title);

export const inboxLink = (publicBaseUrl: string, notificationId: string): string => `${publicBaseUrl}/inbox/${notificationId}`;

const SEVERITY_LABEL: Record<string, string> = { critical: 'CRITICAL', warn: 'WARN', info: 'INFO', success: 'OK' };

/** One line of chat text: `[WARN] Build failed on main <link>` (Slack angle-link form for Slack). */
export function chatPayload(style: ChatStyle, c: NudgeContent): Record<string, unknown> {
  const label = `[${SEVERITY_LABEL[c.severity] ?? c.severity.toUpperCase()}]`;
  if (style === 'feishu') {
    // Feishu/Lark custom bot: {msg_type: "text", content: {text}}.
    return { msg_type: 'text', content: { text: `${label} ${c.title}\n${c.url}` } };
  }
  // Slack incoming webhook: `text` is the fallback; one section block with the same content.
  const text = `${label} ${escapeSlack(c.title)} <${c.url}|Open in inbox>`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Slack mrkdwn control characters (SPEC 2: a summary and an entry point, nothing interpreted). */
const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The Web Push message body (encrypted for the browser): {title, severity, url, tag}. */
export const pushPayload = (c: NudgeContent): string => JSON.stringify({ title: c.title, severity: c.severity, url: c.url, tag: c.tag });

/**
 * A user-supplied receiver URL (chat webhook, push endpoint): at most NUDGE_LIMITS.receiverUrlMax chars, no credentials in
 * the userinfo part, and a target the one egress policy allows (https only; plain http and private
 * or loopback addresses only for `allowHttpHosts`, an explicit deployment option for local test
 * receivers, empty by default). A host name's addresses are checked again at send time, after DNS.
 * A push endpoint must also be on a browser push service (push-subscription.rules.ts).
 */
export function receiverUrlIssue(raw: string, allowHttpHosts: readonly string[]): string | null {
  if (raw.length > NUDGE_LIMITS.receiverUrlMax) return `at most ${NUDGE_LIMITS.receiverUrlMax} characters`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  const d = egressDecision(raw, allowHostSet(allowHttpHosts));
  if (d.ok) return null;
  if (d.refusal === 'address') return 'must not target a loopback, private, link-local or metadata address';
  return d.refusal === 'scheme' ? 'must start with https://' : 'must be an absolute URL';
}
