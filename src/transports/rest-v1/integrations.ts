// REST v1 monitoring receivers, declared once (registered and documented from here): map -> call
// -> map. The mapping of an alert to an event is domain/alerts/monitoring-alerts.rules.ts.
import { receiveAlertmanagerAlerts } from '../../domain/alerts/receive-alertmanager-alerts.js';
import { receiveGrafanaAlerts } from '../../domain/alerts/receive-grafana-alerts.js';
import { AlertmanagerPayloadSchema, ALERT_RECEIVER_LIMITS, GrafanaPayloadSchema } from '../../domain/alerts/monitoring-alerts.rules.js';
import { AlertResultSchema, AlertsReceivedSchema } from '../../domain/alerts/monitoring-alerts.shared.js';
import { route, type RouteDecl } from '../http/route-declaration.js';

export const AlertResult = { name: 'MonitoringAlertResult', schema: AlertResultSchema };
const RECEIVED = { name: 'MonitoringAlertsReceived', schema: AlertsReceivedSchema };

const MAPPING =
  'Personal token as bearer. Each alert becomes one event published exactly as POST /api/v1/events publishes it (same validation, namespace, ' +
  'daily limits, dedup and nudges): event_id `<am|gf>-<fingerprint>-<startsAt as Unix seconds>` (firing and resolved of one episode dedup to one ' +
  'delivery), event_type `<your allowed prefix>alert.<alertname>` (folded to [a-z0-9_-], cut to 60), title from annotations.summary or the alert name, ' +
  'summary from annotations.description (cut to 500), severity from labels.severity (critical, warning -> warn, anything else info), external_status ' +
  'firing or resolved, external_url from generatorURL only when https without credentials, at most 20 labels (alertname and severity first; keys and ' +
  'values cut to 80), occurred_at from startsAt (firing) or endsAt (resolved) clamped into the last 24 hours. ' +
  `At most ${ALERT_RECEIVER_LIMITS.alertsPerPayloadMax} alerts per payload; each counts one event of the per-minute publish budget, the payload all ` +
  'at once or not at all: 429 with Retry-After writes nothing (a re-send is safe: accepted alerts come back deduped). ' +
  '200 when every alert was accepted or deduped; 400 alerts_refused when any was refused, naming each in `errors` (`alerts[<i>].<field>`) and ' +
  '`results` (the other alerts are published all the same). A payload that is not the format (no alerts array, too many alerts, text with control ' +
  'characters anywhere) is 400 schema_invalid and nothing is published.';

export const INTEGRATION_ROUTES: readonly RouteDecl[] = [
  route({
    method: 'POST',
    path: '/api/v1/integrations/alertmanager',
    tag: 'integrations',
    operationId: 'receiveAlertmanagerAlerts',
    summary: "Prometheus Alertmanager webhook receiver (payload version 4): one event per alert into the token owner's inbox",
    description: MAPPING,
    security: 'bearer',
    body: { name: 'AlertmanagerWebhookPayload', schema: AlertmanagerPayloadSchema, required: true },
    success: [{ status: 200, description: 'Every alert accepted or deduped, one result each', body: RECEIVED }],
    errors: { validation: ['alerts_refused'] },
    op: receiveAlertmanagerAlerts,
    input: (req) => req.body,
  }),
  route({
    method: 'POST',
    path: '/api/v1/integrations/grafana',
    tag: 'integrations',
    operationId: 'receiveGrafanaAlerts',
    summary: "Grafana webhook contact point (unified alerting, version 1): one event per alert into the token owner's inbox",
    description: `${MAPPING} Grafana's extra members (silenceURL, dashboardURL, panelURL, values, valueString, title, state, message) are not stored.`,
    security: 'bearer',
    body: { name: 'GrafanaWebhookPayload', schema: GrafanaPayloadSchema, required: true },
    success: [{ status: 200, description: 'Every alert accepted or deduped, one result each', body: RECEIVED }],
    errors: { validation: ['alerts_refused'] },
    op: receiveGrafanaAlerts,
    input: (req) => req.body,
  }),
];
