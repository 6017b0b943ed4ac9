// fluxdesk.moderation.v1.ModerationService: moderation tokens, the hold-for-forwarding queue and
// the circuit breaker reset. Map -> call -> map, like notifications-routes.ts.
import type { ConnectRouter } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { HeldEventStatus, ModerationService, type HeldEventSchema } from '../../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import type { AppDeps } from '../../app/deps.js';
import { issueAdminModerationToken } from '../../domain/moderation/issue-admin-moderation-token.js';
import { listHeldEvents } from '../../domain/moderation/list-held-events.js';
import { editHeldEvent } from '../../domain/moderation/edit-held-event.js';
import { forwardHeldEvent } from '../../domain/moderation/forward-held-event.js';
import { dismissHeldEvent } from '../../domain/moderation/dismiss-held-event.js';
import type { HeldEventView } from '../../domain/moderation/held-event.view.js';
import { resetCircuitBreaker } from '../../domain/tokens/reset-circuit-breaker.js';
import { defined } from './mappers.js';
import { call } from './call.js';

const STATUS_TO_PROTO = { pending: HeldEventStatus.PENDING, forwarded: HeldEventStatus.FORWARDED, dismissed: HeldEventStatus.DISMISSED } as const;
const STATUS_FROM_PROTO: Record<number, string> = {
  [HeldEventStatus.UNSPECIFIED]: 'pending',
  [HeldEventStatus.PENDING]: 'pending',
  [HeldEventStatus.FORWARDED]: 'forwarded',
  [HeldEventStatus.DISMISSED]: 'dismissed',
};

const ts = (iso: string) => timestampFromDate(new Date(iso));
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function heldEventToProto(e: HeldEventView): MessageInitShape<typeof HeldEventSchema> {
  return {
    entryId: e.entry_id,
    deliveryId: e.delivery_id,
    tokenId: e.token_id,
    tokenLabel: e.token_label,
    status: STATUS_TO_PROTO[e.status],
    eventId: e.event_id,
    eventType: e.event_type,
    severity: e.severity,
    title: e.title,
    summary: opt(e.summary),
    markdownBody: opt(e.markdown_body),
    externalUrl: opt(e.external_url),
    externalStatus: opt(e.external_status),
    suggestedEmail: opt(e.suggested_email),
    recipientDisplayHint: e.recipient_hint?.display_hint,
    fireCount: e.fire_count,
    edited: e.edited,
    occurredAt: ts(e.occurred_at),
    receivedAt: ts(e.received_at),
    updatedAt: ts(e.updated_at),
    forwardedToUserId: opt(e.forwarded_to_user_id),
    forwardedToEmail: opt(e.forwarded_to_email),
    forwardedAt: e.forwarded_at === null ? undefined : ts(e.forwarded_at),
    notificationId: opt(e.notification_id),
    dismissedAt: e.dismissed_at === null ? undefined : ts(e.dismissed_at),
    dismissReason: opt(e.dismiss_reason),
  };
}

/** An empty string clears an optional text (proto3 has no null). */
const clearable = (v: string | undefined) => (v === undefined ? undefined : v === '' ? null : v);

/** Registers the services; returns their type names (grpc.health.v1 reports them SERVING). */
export function registerModerationRoutes(router: ConnectRouter, deps: AppDeps): string[] {
  router.service(ModerationService, {
    async issueModerationToken(req, ctx) {
      const out = await call(deps, issueAdminModerationToken, defined({ label: req.label, source_note: req.sourceNote, daily_limit: req.dailyLimit }), ctx);
      return {
        tokenId: out.token_id,
        tokenValue: out.token_value,
        catalogRowId: out.catalog_row_id,
        catalogSlug: out.catalog_slug,
        dailyLimit: out.daily_limit,
        endpointUrl: out.endpoint_url,
        allowedEventPrefix: out.allowed_event_prefix,
      };
    },
    async listHeldEvents(req, ctx) {
      const out = await call(deps, listHeldEvents, defined({ status: req.all ? 'all' : (STATUS_FROM_PROTO[req.status] ?? 'unknown'), limit: req.limit }), ctx);
      return { items: out.items.map(heldEventToProto) };
    },
    async editHeldEvent(req, ctx) {
      const input = defined({ entry_id: req.entryId, title: req.title, summary: clearable(req.summary), markdown_body: clearable(req.markdownBody) });
      return { entry: heldEventToProto(await call(deps, editHeldEvent, input, ctx)) };
    },
    async forwardHeldEvent(req, ctx) {
      return { entry: heldEventToProto(await call(deps, forwardHeldEvent, defined({ entry_id: req.entryId, email: req.email }), ctx)) };
    },
    async dismissHeldEvent(req, ctx) {
      return { entry: heldEventToProto(await call(deps, dismissHeldEvent, defined({ entry_id: req.entryId, reason: req.reason }), ctx)) };
    },
    async resetCircuitBreaker(req, ctx) {
      const out = await call(deps, resetCircuitBreaker, { token_id: req.tokenId }, ctx);
      return { tokenId: out.token_id, wasOpen: out.was_open };
    },
  });
  return [ModerationService.typeName];
}
