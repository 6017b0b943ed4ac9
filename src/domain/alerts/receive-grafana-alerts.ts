// POST /api/v1/integrations/grafana: Grafana's webhook contact point (unified alerting, version "1")
// with a personal token as bearer; each alert one event (monitoring-alerts.shared.ts).
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { alertPayloadCost, GrafanaPayloadSchema } from './monitoring-alerts.rules.js';
import { receiveAlerts, type AlertsReceived } from './monitoring-alerts.shared.js';

export const receiveGrafanaAlerts = defineOperation<z.infer<typeof GrafanaPayloadSchema>, AlertsReceived, InboundTokenPrincipal>({
  name: 'alerts.receive_grafana',
  auth: { kind: 'inbound', tokenKinds: ['personal'] },
  budget: 'publish',
  budgetCost: alertPayloadCost,
  // Grafana sends no Idempotency-Key; a re-sent payload dedups per alert.
  idempotent: false,
  input: GrafanaPayloadSchema,
  handler: (payload, ctx) => receiveAlerts('grafana', payload, ctx),
});
