// Monitoring webhooks (Alertmanager "version 4", Grafana unified alerting "version 1") as inbound
// events: pure mapping, no validation of the event's own rules. Every event built here is published
// by the same operation as POST /api/v1/events (events/publish-event.ts), which decides whether it
// is acceptable; this file only reads the monitoring format (docs/contract.md "InboundEvent").
import { z } from 'zod';
import { InboundEventSchema, type InboundEvent } from '../events/event-validation.rules.js';
import { EVENT_LIMITS, OCCURRED_AT_PAST_MS, SPEC_VERSION } from '../events/event.limits.js';
import { budgetWindow } from '../rate-budgets.rules.js';

export const ALERT_RECEIVER_LIMITS = {
  /**
   * Alerts in one webhook payload. Each alert counts one hit of the token's publish budget and a
   * payload is counted all at once or not at all, so a payload must fit one window: a larger one
   * could never be accepted (set `max_alerts` in Alertmanager's webhook_config to at most this).
   */
  alertsPerPayloadMax: budgetWindow('publish', 'minute').limit,
  /** occurred_at is clamped to this long after (now - 24 h): the event is published a moment later. */
  occurredAtMarginMs: 60_000,
} as const;

export type AlertSource = 'alertmanager' | 'grafana';

/** The event_id prefix per source: the same fingerprint from two sources is two events. */
const EVENT_ID_PREFIX: Record<AlertSource, string> = { alertmanager: 'am', grafana: 'gf' };

const text = z.string();
const stringMap = z.record(z.string(), z.string());

/** One alert as both formats send it (Grafana adds silenceURL, dashboardURL, panelURL, values, valueString). */
export const MonitoringAlertSchema = z.looseObject({
  status: z.enum(['firing', 'resolved']),
  labels: stringMap,
  annotations: stringMap.optional(),
  startsAt: z.iso.datetime({ offset: true }),
  endsAt: z.iso.datetime({ offset: true }).optional(),
  generatorURL: text.optional(),
  fingerprint: z.string().min(1),
});
export type MonitoringAlert = z.infer<typeof MonitoringAlertSchema>;

const alerts = z
  .array(
    z.unknown().meta({
      description:
        'One alert: {status (firing | resolved), labels, annotations, startsAt, endsAt, generatorURL, fingerprint}. Checked one by one: a refused alert is named in the answer, the others are published.',
    }),
  )
  .min(1)
  .max(ALERT_RECEIVER_LIMITS.alertsPerPayloadMax);

/** Alertmanager's webhook body (version "4"); unknown members are ignored. */
export const AlertmanagerPayloadSchema = z.looseObject({
  version: z.string().optional(),
  groupKey: text.optional(),
  truncatedAlerts: z.number().int().min(0).optional(),
  status: text.optional(),
  receiver: text.optional(),
  groupLabels: z.record(z.string(), z.unknown()).optional(),
  commonLabels: z.record(z.string(), z.unknown()).optional(),
  commonAnnotations: z.record(z.string(), z.unknown()).optional(),
  externalURL: text.optional(),
  alerts,
});
export type AlertmanagerPayload = z.infer<typeof AlertmanagerPayloadSchema>;

/** Grafana's webhook contact point body (version "1"); unknown members are ignored. */
export const GrafanaPayloadSchema = z.looseObject({
  receiver: text.optional(),
  status: text.optional(),
  orgId: z.number().optional(),
  groupLabels: z.record(z.string(), z.unknown()).optional(),
  commonLabels: z.record(z.string(), z.unknown()).optional(),
  commonAnnotations: z.record(z.string(), z.unknown()).optional(),
  externalURL: text.optional(),
  version: z.string().optional(),
  groupKey: text.optional(),
  truncatedAlerts: z.number().int().min(0).optional(),
  title: text.optional(),
  state: text.optional(),
  message: text.optional(),
  alerts,
});

/** Hits of the publish budget a payload counts: one per alert (a payload the schema refuses counts one). */
export function alertPayloadCost(raw: unknown): number {
  const list = typeof raw === 'object' && raw !== null ? (raw as { alerts?: unknown }).alerts : undefined;
  return Array.isArray(list) && list.length >= 1 && list.length <= ALERT_RECEIVER_LIMITS.alertsPerPayloadMax ? list.length : 1;
}

/** Alertmanager / Grafana severities -> ours; anything else is info. */
export function alertSeverity(label: string | undefined): InboundEvent['severity'] {
  const s = label?.trim().toLowerCase();
  if (s === 'critical') return 'critical';
  if (s === 'warning') return 'warn';
  return 'info';
}

/** `<prefix>alert.<alertname>`: the name folded to [a-z0-9_-] (other runs become `_`), cut to the event_type limit. */
export function alertEventType(allowedPrefix: string, alertname: string | undefined): string {
  const base = `${allowedPrefix}alert.`;
  const name =
    (alertname ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'unnamed';
  return (base + name).slice(0, Math.max(base.length + 1, EVENT_LIMITS.eventTypeMax));
}

/** One line, cut to `max` characters (no half surrogate pair at the cut). */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const out = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(out) ? out.slice(0, -1) : out;
}
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();

/**
 * Labels as an event carries them: at most EVENT_LIMITS.labelsMax entries (`alertname` and
 * `severity` first, then by key), keys and values cut to their limits, empty keys dropped.
 */
export function alertLabels(labels: Record<string, string>): Record<string, string> {
  const first = ['alertname', 'severity'];
  const keys = Object.keys(labels).sort((a, b) => {
    const fa = first.indexOf(a);
    const fb = first.indexOf(b);
    if (fa !== fb) return (fa < 0 ? first.length : fa) - (fb < 0 ? first.length : fb);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  // Keys come from the sender: a map without a prototype.
  const out: Record<string, string> = Object.create(null);
  let n = 0;
  for (const k of keys) {
    if (n >= EVENT_LIMITS.labelsMax) break;
    const key = cut(oneLine(k), EVENT_LIMITS.labelKeyMax);
    if (key === '' || Object.hasOwn(out, key)) continue;
    out[key] = cut(labels[k]!, EVENT_LIMITS.labelValueMax);
    n++;
  }
  return { ...out };
}

/** An instant moved into the accepted occurred_at window (now - 24 h, now]. */
export function clampOccurredAt(ms: number, nowMs: number): string {
  const earliest = nowMs - OCCURRED_AT_PAST_MS + ALERT_RECEIVER_LIMITS.occurredAtMarginMs;
  return new Date(Math.min(nowMs, Math.max(earliest, ms))).toISOString();
}

/** Go's zero time (`0001-01-01T00:00:00Z`): Alertmanager's and Grafana's "no end yet". */
const isZeroTime = (ms: number) => ms < Date.UTC(1971, 0, 1);

/**
 * The event an alert becomes. event_id is the fingerprint plus the alert's start (Unix seconds):
 * the firing and the resolved notification of one episode dedup to one delivery; a later episode
 * of the same alert (a new start) is a new delivery that notifies again.
 */
export function alertToEvent(alert: MonitoringAlert, c: { source: AlertSource; allowedEventPrefix: string; now: Date }): InboundEvent {
  const nowMs = c.now.getTime();
  const annotations = alert.annotations ?? {};
  const alertname = alert.labels.alertname;
  const startsMs = Date.parse(alert.startsAt);
  const endsMs = alert.endsAt === undefined ? Number.NaN : Date.parse(alert.endsAt);
  const occurredMs = alert.status === 'resolved' && Number.isFinite(endsMs) && !isZeroTime(endsMs) ? endsMs : startsMs;
  const title = oneLine(annotations.summary ?? '') || oneLine(alertname ?? '') || 'Alert';
  const description = annotations.description?.trim();
  const url = alert.generatorURL;
  const ev: InboundEvent = {
    spec_version: SPEC_VERSION,
    event_id: cut(`${EVENT_ID_PREFIX[c.source]}-${alert.fingerprint}-${Math.floor(startsMs / 1000)}`, EVENT_LIMITS.eventIdMax),
    event_type: alertEventType(c.allowedEventPrefix, alertname),
    severity: alertSeverity(alert.labels.severity),
    title: cut(title, EVENT_LIMITS.titleMax),
    occurred_at: clampOccurredAt(occurredMs, nowMs),
    external_status: alert.status,
    labels: alertLabels(alert.labels),
  };
  if (description) ev.summary = cut(description, EVENT_LIMITS.summaryMax);
  // Only a link the event's own rule accepts (https, no credentials): any other is dropped, not refused.
  if (url !== undefined && InboundEventSchema.shape.external_url.safeParse(url).success) ev.external_url = url;
  return ev;
}
