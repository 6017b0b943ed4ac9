// What the two monitoring receivers (receive-alertmanager-alerts.ts, receive-grafana-alerts.ts)
// share: each alert of a payload is mapped (monitoring-alerts.rules.ts) and published through the
// SAME operation as POST /api/v1/events (validation, namespace, daily limits, dedup, nudges), and the
// payload gets one answer: 200 with a result per alert when every alert was accepted or deduped; 400
// naming the refused alerts (the others are published all the same) otherwise. The per-minute
// budget is counted by the runner for the whole payload, one hit per alert (Operation.budgetCost).
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { DomainError, type Issue } from '../errors.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { publishEvent } from '../events/publish-event.js';
import { zodToIssues } from '../validation.js';
import { alertToEvent, MonitoringAlertSchema, type AlertSource } from './monitoring-alerts.rules.js';

export const AlertResultSchema = z.strictObject({
  index: z.number().int().min(0),
  fingerprint: z.string().nullable(),
  outcome: z.enum(['accepted', 'deduped', 'refused']),
  eventId: z.string().optional(),
  eventType: z.string().optional(),
  deliveryId: z.uuid().optional(),
  fireCount: z.number().int().min(1).optional(),
  externalStatus: z.string().optional(),
  /** Over a daily limit: accepted into the inbox only (no nudge), as POST /api/v1/events answers `degraded`. */
  degraded: z.boolean().optional(),
  errors: z.array(z.strictObject({ field: z.string(), code: z.string(), message: z.string() })).optional(),
});
export type AlertResult = z.infer<typeof AlertResultSchema>;

export const AlertsReceivedSchema = z.strictObject({
  receiver: z.enum(['alertmanager', 'grafana']),
  accepted: z.number().int().min(0),
  deduped: z.number().int().min(0),
  /** Alerts the sender left out of the payload (its `truncatedAlerts`): never received here. */
  truncatedAlerts: z.number().int().min(0),
  results: z.array(AlertResultSchema),
  requestId: z.string(),
});
export type AlertsReceived = z.infer<typeof AlertsReceivedSchema>;

const fingerprintOf = (a: unknown): string | null => {
  const f = typeof a === 'object' && a !== null ? (a as { fingerprint?: unknown }).fingerprint : undefined;
  return typeof f === 'string' ? f : null;
};

/** Every alert of one payload, published one event each (concurrently: the event store groups the commits). */
export async function receiveAlerts(
  source: AlertSource,
  payload: { alerts: unknown[]; truncatedAlerts?: number },
  ctx: OpContext<InboundTokenPrincipal>,
): Promise<AlertsReceived> {
  const now = ctx.clock.now();
  const results = await Promise.all(payload.alerts.map((raw, index) => receiveOne(source, raw, index, now, ctx)));
  const refused = results.filter((r) => r.outcome === 'refused');
  if (refused.length > 0) {
    const issues: Issue[] = refused.flatMap((r) => (r.errors ?? []).map((e) => ({ ...e, field: `alerts[${r.index}]${e.field ? `.${e.field}` : ''}` })));
    throw new DomainError('validation', `${refused.length} of ${results.length} alerts refused (the others were published): see results`, {
      code: 'alerts_refused',
      issues,
      extra: { results },
    });
  }
  return {
    receiver: source,
    accepted: results.filter((r) => r.outcome === 'accepted').length,
    deduped: results.filter((r) => r.outcome === 'deduped').length,
    truncatedAlerts: payload.truncatedAlerts ?? 0,
    results,
    requestId: ctx.requestId,
  };
}

async function receiveOne(source: AlertSource, raw: unknown, index: number, now: Date, ctx: OpContext<InboundTokenPrincipal>): Promise<AlertResult> {
  const fingerprint = fingerprintOf(raw);
  const parsed = MonitoringAlertSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) return { index, fingerprint, outcome: 'refused', errors: zodToIssues(parsed.error) };
  const ev = alertToEvent(parsed.data, { source, allowedEventPrefix: ctx.principal.allowedEventPrefix, now });
  try {
    const out = await ctx.call(publishEvent, ev);
    const d = out.delivery;
    return {
      index,
      fingerprint,
      outcome: d.deduped ? 'deduped' : 'accepted',
      eventId: ev.event_id,
      eventType: d.eventType,
      deliveryId: d.deliveryId,
      fireCount: d.fireCount,
      ...(d.externalStatus ? { externalStatus: d.externalStatus } : {}),
      degraded: d.degraded,
    };
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind !== 'validation') throw err;
    // Refused as POST /api/v1/events refuses it: audited and counted by the token's circuit breaker alike.
    await publishEvent.onRejected?.(err.issues, ev, ctx).catch((e) => ctx.log.warn({ err: e }, 'could not audit a rejected alert'));
    return {
      index,
      fingerprint,
      outcome: 'refused',
      eventId: ev.event_id,
      eventType: ev.event_type,
      errors: err.issues.map((i) => ({ field: i.field, code: i.code, message: i.message })),
    };
  }
}
