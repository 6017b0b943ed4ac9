// POST /api/v1/integrations/alertmanager: Alertmanager's webhook (version "4") with a personal
// token as bearer; each alert one event (monitoring-alerts.shared.ts).
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { alertPayloadCost, AlertmanagerPayloadSchema, type AlertmanagerPayload } from './monitoring-alerts.rules.js';
import { receiveAlerts, type AlertsReceived } from './monitoring-alerts.shared.js';

export const receiveAlertmanagerAlerts = defineOperation<AlertmanagerPayload, AlertsReceived, InboundTokenPrincipal>({
  name: 'alerts.receive_alertmanager',
  auth: { kind: 'inbound', tokenKinds: ['personal'] },
  budget: 'publish',
  budgetCost: alertPayloadCost,
  // Alertmanager sends no Idempotency-Key; a re-sent payload dedups per alert.
  idempotent: false,
  input: AlertmanagerPayloadSchema,
  handler: (payload, ctx) => receiveAlerts('alertmanager', payload, ctx),
});
