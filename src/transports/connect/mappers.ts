// Proto <-> domain JSON shapes. The proto request becomes the same snake_case object the REST
// surface sends, so the one validator sees identical input.
import { create, fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate, ValueSchema, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { InboundEvent, PublishBulkRequest } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import {
  BulkDeliveryResultSchema,
  DeliverySchema,
  GetDeliveryTraceResponseSchema,
  GetTokenSelfResponseSchema,
  type BulkDeliveryResult,
  type Delivery,
  type GetDeliveryTraceResponse,
  type GetTokenSelfResponse,
} from '../../../gen/fluxdesk/events/v1/events_pb.js';
import type { TokenSelf } from '../../domain/tokens/get-token-self.js';
import type { DeliveryTrace } from '../../domain/events/get-delivery-trace.js';
import type { ClaimTokenRequest } from '../../../gen/fluxdesk/tokens/v1/tokens_pb.js';
import {
  ClaimedTokenSchema,
  ClaimTokenBatchResultSchema,
  PingResponseSchema,
  type ClaimedToken,
  type ClaimTokenBatchResult,
  type PingResponse,
} from '../../../gen/fluxdesk/tokens/v1/tokens_pb.js';
import {
  CatalogApprovalListItemSchema,
  CatalogItemSchema,
  CreateItemRequestSchema,
  ListItemsRequestSchema,
  UpdateItemRequestSchema,
  type CatalogItem,
  type CreateItemRequest,
  type ListItemsRequest,
  type UpdateItemRequest,
  EventTypeRowSchema,
  IntegratorSchema,
  ListEventTypesResponseSchema,
  type CatalogApprovalListItem,
  type EventTypeRow,
  type Integrator,
  type ListEventTypesResponse,
} from '../../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import type { DeliveryView } from '../../domain/events/delivery.view.js';
import type { BulkRow } from '../../domain/events/publish-bulk.js';
import type { EventTypeRow as EventTypeRowView, EventTypesResponse } from '../../domain/events/list-event-types.js';
import type { ClaimBatchRow } from '../../domain/tokens/claim-token-batch.js';
import type { ToolsPing } from '../../domain/tokens/ping-tools-token.js';
import { validationFailed } from '../../domain/errors.js';
import { toConnectError } from './errors.js';
import type { CatalogApprovalListItem as ApprovalView } from '../../domain/catalog/catalog-approvals.schemas.js';
import type { CatalogItemView } from '../../domain/catalog/catalog-items.schemas.js';
import {
  AdminTokenListItemSchema,
  AgentTokenSchema,
  ClickActionResponseSchema,
  PersonalTokenSchema,
  type AdminTokenListItem,
  type AgentToken,
  type ClickActionResponse,
  type PersonalToken,
} from '../../../gen/fluxdesk/account/v1/account_pb.js';
import type { OwnTokenView } from '../../domain/tokens/list-own-tokens.js';
import type { AdminTokenView } from '../../domain/tokens/list-tokens-as-admin.js';
import type { AgentTokenView } from '../../domain/tokens/list-own-agent-tokens.js';
import type { CallbackOutcome } from '../../domain/actions/callback-sender.js';

/** Drops unset proto3 `optional` fields, so the validator sees the same keys a JSON body would carry. */
export const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const ts = (iso: string) => timestampFromDate(new Date(iso));
const tsOrUnset = (iso: string | null) => (iso === null ? undefined : ts(iso));

export function inboundEventToJson(ev: InboundEvent | undefined): Record<string, unknown> {
  if (!ev) return {};
  return defined({
    spec_version: ev.specVersion,
    event_id: ev.eventId,
    event_type: ev.eventType,
    severity: ev.severity,
    title: ev.title,
    occurred_at: ev.occurredAt,
    summary: ev.summary,
    markdown_body: ev.markdownBody,
    markdown_body_rendering: ev.markdownBodyRendering,
    external_url: ev.externalUrl,
    external_status: ev.externalStatus,
    actor: ev.actor ? defined({ email: ev.actor.email, name: ev.actor.name }) : undefined,
    labels: Object.keys(ev.labels).length > 0 ? { ...ev.labels } : undefined,
    actions:
      ev.actions.length > 0 ? ev.actions.map((a) => defined({ label: a.label, action_type: a.actionType, url: a.url, webhook_url: a.webhookUrl })) : undefined,
    recipient_hint: ev.recipientHint
      ? defined({ email: ev.recipientHint.email, user_id: ev.recipientHint.userId, display_hint: ev.recipientHint.displayHint })
      : undefined,
    recipient: ev.recipient ? { type: ev.recipient.type, value: ev.recipient.value } : undefined,
    project_slug: ev.projectSlug,
    tone: ev.tone,
    locale: ev.locale,
  });
}

export function deliveryToProto(d: DeliveryView): Delivery {
  return create(DeliverySchema, {
    deliveryId: d.deliveryId,
    eventType: d.eventType,
    severity: d.severity,
    tone: d.tone,
    title: d.title,
    summary: d.summary,
    externalUrl: d.externalUrl,
    externalStatus: d.externalStatus,
    occurredAt: timestampFromDate(new Date(d.occurredAt)),
    createdAt: timestampFromDate(new Date(d.createdAt)),
    resolvedAt: d.resolvedAt === null ? undefined : timestampFromDate(new Date(d.resolvedAt)),
    resolutionNote: d.resolutionNote ?? undefined,
    fireCount: d.fireCount,
    deduped: d.deduped,
    ok: d.ok,
    pushed: d.pushed,
    degraded: d.degraded,
    requestId: d.requestId,
    deprecation: d.deprecation,
    locale: d.locale,
    recipientUserId: d.recipientUserId,
    projectId: d.projectId ?? undefined,
    supplements: d.supplements.map((s) => ({ id: s.id, markdownBody: s.markdownBody, createdAt: timestampFromDate(new Date(s.createdAt)) })),
  });
}

// ---------------------------------------------------------------------------------------------
// fluxdesk.events.v1 PublishBulk

/** A missing `event` stays missing, so the validator reports `event` itself as required. */
export function publishBulkToJson(req: PublishBulkRequest): Record<string, unknown> {
  return defined({
    event: req.event ? inboundEventToJson(req.event) : undefined,
    recipients: req.recipients.map((r) => defined({ type: r.type, email: r.email, user_id: r.userId, slug: r.slug })),
    auto_claim: req.autoClaim,
  });
}

export function bulkRowToProto(r: BulkRow): BulkDeliveryResult {
  return create(BulkDeliveryResultSchema, {
    email: r.email,
    deliveryId: r.deliveryId,
    deduped: r.deduped,
    pushed: r.pushed,
    autoClaimed: r.autoClaimed,
    error: r.error,
    userId: r.userId,
  });
}

// ---------------------------------------------------------------------------------------------
// fluxdesk.tokens.v1

export function claimTokenRequestToJson(r: ClaimTokenRequest): Record<string, unknown> {
  return defined({ email: r.email, label: r.label, severity_ceiling: r.severityCeiling, daily_limit: r.dailyLimit });
}

export function claimedTokenToProto(t: { token: string; tokenId: string; ownerUserId: string; expiresPriorAt: string }): ClaimedToken {
  return create(ClaimedTokenSchema, { token: t.token, tokenId: t.tokenId, ownerUserId: t.ownerUserId, expiresPriorAt: ts(t.expiresPriorAt) });
}

export function claimBatchRowToProto(r: ClaimBatchRow): ClaimTokenBatchResult {
  return create(ClaimTokenBatchResultSchema, { email: r.email, ok: r.ok, token: r.token ? claimedTokenToProto(r.token) : undefined, reason: r.reason });
}

export function toolsPingToProto(p: ToolsPing): PingResponse {
  return create(PingResponseSchema, { ok: p.ok, kind: p.kind, toolsTokenId: p.tools_token_id, label: p.label, owner: p.owner, now: ts(p.now) });
}

// ---------------------------------------------------------------------------------------------
// fluxdesk.catalog.v1

export function approvalToProto(a: ApprovalView): CatalogApprovalListItem {
  return create(CatalogApprovalListItemSchema, {
    id: a.id,
    email: a.email,
    catalogSlug: a.catalogSlug,
    status: a.status,
    requestedAt: ts(a.requestedAt),
    reviewedAt: tsOrUnset(a.reviewedAt),
    reviewedByEmail: a.reviewedByEmail ?? undefined,
  });
}

export function integratorToProto(i: {
  id: string;
  slug: string;
  name: string;
  allowedEventPrefix: string;
  createdAt: string;
  homepageUrl: string | null;
  description: string | null;
}): Integrator {
  return create(IntegratorSchema, {
    id: i.id,
    slug: i.slug,
    name: i.name,
    allowedEventPrefix: i.allowedEventPrefix,
    createdAt: ts(i.createdAt),
    homepageUrl: i.homepageUrl ?? undefined,
    description: i.description ?? undefined,
  });
}

const eventTypeRowToProto = (r: EventTypeRowView): EventTypeRow =>
  create(EventTypeRowSchema, { eventType: r.eventType, lastSeenAt: tsOrUnset(r.lastSeenAt), count: BigInt(r.count) });

export function eventTypesToProto(r: EventTypesResponse): ListEventTypesResponse {
  return create(ListEventTypesResponseSchema, {
    yourIntegrator: { slug: r.yourIntegrator.slug, allowedEventPrefix: r.yourIntegrator.allowedEventPrefix },
    yourEventTypes: r.yourEventTypes.map(eventTypeRowToProto),
    fluxdeskInternalTypes: r.fluxdeskInternalTypes.map(eventTypeRowToProto),
    requestId: r.requestId,
  });
}

// Catalog items. Requests go through the proto JSON form with proto field names: that is exactly
// the REST body (snake_case keys, unset optionals absent, use_cases as plain JSON).
// A message valid on the wire may have no JSON form (binary only: a Value with no kind, a NaN or
// infinite number value, a field mask path without a JSON name): the caller's error, not ours.
function protoNamedJson<Desc extends DescMessage>(schema: Desc, req: MessageShape<Desc>): Record<string, unknown> {
  try {
    return toJson(schema, req, { useProtoFieldName: true }) as Record<string, unknown>;
  } catch (e) {
    const message = `the request has no JSON form: ${(e as Error).message}`;
    throw toConnectError(validationFailed([{ field: '', code: 'invalid_value', message }]));
  }
}

export function createItemToJson(req: CreateItemRequest): Record<string, unknown> {
  return protoNamedJson(CreateItemRequestSchema, req);
}

export function listItemsToJson(req: ListItemsRequest): Record<string, unknown> {
  return protoNamedJson(ListItemsRequestSchema, req);
}

/**
 * PATCH body from an update mask: each named field with its value, or null when unset (clear);
 * `use_cases` always as a list. `slug` is the lookup key (`path_slug`); a mask naming `slug` or
 * `type` sends them too, so the operation refuses them as immutable, like a REST body would.
 */
export function updateItemToJson(req: UpdateItemRequest): Record<string, unknown> {
  const { update_mask: _mask, ...set } = protoNamedJson(UpdateItemRequestSchema, req);
  if (!req.updateMask) {
    const { slug: _slug, ...fields } = set;
    return { ...fields, path_slug: req.slug };
  }
  const named = req.updateMask.paths.map((path) => [path, path === 'use_cases' ? (set.use_cases ?? []) : (set[path] ?? null)] as const);
  return { ...Object.fromEntries(named), path_slug: req.slug };
}

export function catalogItemToProto(v: CatalogItemView): CatalogItem {
  return create(CatalogItemSchema, {
    id: v.id,
    slug: v.slug ?? undefined,
    name: v.name,
    type: v.type,
    description: v.description ?? undefined,
    category: v.category ?? undefined,
    categoryDisplay: v.categoryDisplay,
    url: v.url ?? undefined,
    applicationGuide: v.application_guide ?? undefined,
    useCases: v.use_cases.map((u) => fromJson(ValueSchema, u as JsonValue)),
    isPinned: v.is_pinned,
    approvalRequired: v.approval_required,
    displayOrder: v.display_order,
    contactUserId: v.contact_user_id ?? undefined,
    linkedToolsTokenId: v.linked_tools_token_id ?? undefined,
    archivedAt: tsOrUnset(v.archived_at),
    createdAt: ts(v.created_at),
    updatedAt: ts(v.updated_at),
  });
}

// ---------------------------------------------------------------------------------------------
// fluxdesk.account.v1

/** Scopes for a create request: an empty repeated field means "none chosen" (`*`), like an absent JSON key. */
export function scopesRequestToJson(r: { scopes: string[]; label?: string }): Record<string, unknown> {
  return defined({ scopes: r.scopes.length > 0 ? [...r.scopes] : undefined, label: r.label });
}

export function personalTokenToProto(t: OwnTokenView): PersonalToken {
  return create(PersonalTokenSchema, {
    tokenId: t.tokenId,
    kind: t.kind,
    label: t.label,
    status: t.status,
    displayPrefix: t.displayPrefix,
    dailyLimit: t.dailyLimit,
    integratorId: t.integratorId,
    createdAt: ts(t.createdAt),
    lastUsedAt: tsOrUnset(t.lastUsedAt),
    revokedAt: tsOrUnset(t.revokedAt),
    callbackSecret: t.callbackSecret,
    note: t.note ?? undefined,
    nudgeThreshold: t.nudgeThreshold,
  });
}

/** Token oversight row: never a value, hash, display prefix or callback secret (the view has none). */
export function adminTokenToProto(t: AdminTokenView): AdminTokenListItem {
  return create(AdminTokenListItemSchema, {
    tokenId: t.tokenId,
    kind: t.kind,
    label: t.label,
    status: t.status,
    ownerUserId: t.ownerUserId,
    ownerEmail: t.ownerEmail,
    dailyLimit: t.dailyLimit,
    createdAt: ts(t.createdAt),
    lastUsedAt: tsOrUnset(t.lastUsedAt),
    revokedAt: tsOrUnset(t.revokedAt),
    revokedReason: t.revokedReason ?? undefined,
  });
}

export function agentTokenToProto(t: AgentTokenView): AgentToken {
  return create(AgentTokenSchema, {
    tokenId: t.tokenId,
    label: t.label,
    scopes: t.scopes,
    displayPrefix: t.displayPrefix,
    createdAt: ts(t.createdAt),
    lastUsedAt: tsOrUnset(t.lastUsedAt),
    revokedAt: tsOrUnset(t.revokedAt),
    current: t.current,
  });
}

export function clickOutcomeToProto(o: CallbackOutcome): ClickActionResponse {
  return create(ClickActionResponseSchema, { status: o.status, ok: o.ok, error: o.error });
}

/**
 * A request's Timestamp as the RFC 3339 text the operation validates; one no Date can hold (seconds
 * beyond year 275760) becomes a text the validator refuses, never an exception.
 */
export function isoOfTimestamp(t: Timestamp): string {
  const d = timestampDate(t);
  return Number.isNaN(d.getTime()) ? `out of range (${t.seconds} s)` : d.toISOString();
}

/** tokens/self (get-token-self.ts) as GetTokenSelfResponse: nulls are unset fields. */
/** The trace: a step's absent fields stay unset; nextRetryAt null (not known) is unset too. */
export function deliveryTraceToProto(t: DeliveryTrace): GetDeliveryTraceResponse {
  return create(GetDeliveryTraceResponseSchema, {
    deliveryId: t.deliveryId,
    fireCount: t.fireCount,
    steps: t.steps.map(({ at, nextRetryAt, ...rest }) => ({ ...rest, at: ts(at), nextRetryAt: nextRetryAt ? ts(nextRetryAt) : undefined })),
    requestId: t.requestId,
  });
}

export function tokenSelfToProto(t: TokenSelf): GetTokenSelfResponse {
  const at = (iso: string | null) => (iso === null ? undefined : ts(iso));
  return create(GetTokenSelfResponseSchema, {
    tokenId: t.tokenId,
    kind: t.kind,
    label: t.label,
    owner: t.owner,
    integrator: t.integrator,
    createdAt: ts(t.createdAt),
    lastUsedAt: at(t.lastUsedAt),
    expiresAt: at(t.expiresAt),
    previousValidUntil: at(t.previousValidUntil),
    limits: {
      perMinute: (t.limits.perMinute ?? []).map((w) => ({ ...w, resetAtUnix: BigInt(w.resetAtUnix) })),
      perMinuteUnavailable: t.limits.perMinute === null,
      daily: t.limits.daily === null ? undefined : { ...t.limits.daily, resetAtUnix: BigInt(t.limits.daily.resetAtUnix) },
      userDaily: t.limits.userDaily ?? undefined,
    },
    circuitBreaker: t.circuitBreaker,
    requestId: t.requestId,
  });
}
