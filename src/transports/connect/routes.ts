// Connect services (used by both listeners): EventService, ToolsTokenService,
// CatalogApprovalService, CatalogItemService, IntegratorService, AccountService, NotificationSettingsService (notifications-routes.ts),
// CatalogPortalService (catalog-portal-routes.ts),
// the work services (work-routes.ts), ModerationService (moderation-routes.ts), grpc.health.v1.Health and
// gRPC server reflection (reflection.ts). Each handler maps the proto
// request to the snake_case input the REST route passes, calls the same operation, maps back.
import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { ToolsTokenService } from '../../../gen/fluxdesk/tokens/v1/tokens_pb.js';
import { CatalogApprovalService, CatalogItemService, IntegratorService } from '../../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import { Health } from '../../../gen/grpc/health/v1/health_pb.js';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import type { AppDeps } from '../../app/deps.js';
import { publishEvent } from '../../domain/events/publish-event.js';
import { getDelivery } from '../../domain/events/get-delivery.js';
import { getDeliveryTrace } from '../../domain/events/get-delivery-trace.js';
import { getTokenSelf } from '../../domain/tokens/get-token-self.js';
import { resolveDelivery } from '../../domain/events/resolve-delivery.js';
import { supplementDelivery } from '../../domain/events/supplement-delivery.js';
import { publishBulk } from '../../domain/events/publish-bulk.js';
import { listEventTypes } from '../../domain/events/list-event-types.js';
import { claimToken } from '../../domain/tokens/claim-token.js';
import { claimTokenBatch } from '../../domain/tokens/claim-token-batch.js';
import { pingToolsToken } from '../../domain/tokens/ping-tools-token.js';
import { listIntegrators } from '../../domain/tokens/list-integrators.js';
import { assignCatalogApproval } from '../../domain/catalog/assign-catalog-approval.js';
import { createCatalogItem } from '../../domain/catalog/create-catalog-item.js';
import { deleteCatalogItem } from '../../domain/catalog/delete-catalog-item.js';
import { getCatalogItem } from '../../domain/catalog/get-catalog-item.js';
import { listCatalogApprovals } from '../../domain/catalog/list-catalog-approvals.js';
import { listCatalogItems } from '../../domain/catalog/list-catalog-items.js';
import { reviewCatalogApproval } from '../../domain/catalog/review-catalog-approval.js';
import { revokeCatalogApproval } from '../../domain/catalog/revoke-catalog-approval.js';
import { updateCatalogItem } from '../../domain/catalog/update-catalog-item.js';
import { disableOwnToken } from '../../domain/tokens/disable-own-token.js';
import { enableOwnToken } from '../../domain/tokens/enable-own-token.js';
import { issueOwnPersonalToken } from '../../domain/tokens/issue-own-personal-token.js';
import { listOwnTokens } from '../../domain/tokens/list-own-tokens.js';
import { revokeOwnToken } from '../../domain/tokens/revoke-own-token.js';
import { rotateOwnToken } from '../../domain/tokens/rotate-own-token.js';
import { setOwnTokenNudgeThreshold } from '../../domain/tokens/set-own-token-nudge-threshold.js';
import { adminListTokens } from '../../domain/tokens/list-tokens-as-admin.js';
import { adminRevokeToken } from '../../domain/tokens/revoke-token-as-admin.js';
import { offboardUser } from '../../domain/users/offboard-user.js';
import { createOwnAgentToken } from '../../domain/tokens/create-own-agent-token.js';
import { listOwnAgentTokens } from '../../domain/tokens/list-own-agent-tokens.js';
import { revokeOwnAgentToken } from '../../domain/tokens/revoke-own-agent-token.js';
import { startConnectSession } from '../../domain/tokens/start-connect-session.js';
import { clickActionOperation } from '../../domain/actions/click-action.js';
import {
  adminTokenToProto,
  tokenSelfToProto,
  agentTokenToProto,
  approvalToProto,
  bulkRowToProto,
  catalogItemToProto,
  claimBatchRowToProto,
  claimedTokenToProto,
  claimTokenRequestToJson,
  clickOutcomeToProto,
  createItemToJson,
  defined,
  deliveryToProto,
  deliveryTraceToProto,
  eventTypesToProto,
  inboundEventToJson,
  integratorToProto,
  listItemsToJson,
  personalTokenToProto,
  publishBulkToJson,
  scopesRequestToJson,
  toolsPingToProto,
  updateItemToJson,
} from './mappers.js';
import { registerNotificationRoutes } from './notifications-routes.js';
import { registerWorkRoutes } from './work-routes.js';
import { registerModerationRoutes } from './moderation-routes.js';
import { registerInboxRoutes } from './inbox-routes.js';
import { registerCatalogPortalRoutes } from './catalog-portal-routes.js';
import { registerHealth } from './health.js';
import { REFLECTION_SERVICES, registerReflection } from './reflection.js';
import { call } from './call.js';

/** Registers every service on a listener's router (serving.ts gives each method its body bound). */
export function connectRoutes(deps: AppDeps) {
  // Webhook action callbacks leave through the sender the composition root built (src/deps.ts).
  const clickAction = clickActionOperation(deps.callbackSender);
  return (router: ConnectRouter): void => {
    router.service(EventService, {
      async publish(req, ctx) {
        const out = await call(deps, publishEvent, inboundEventToJson(req.event), ctx, 'event');
        return { delivery: deliveryToProto(out.delivery), created: out.created };
      },
      async get(req, ctx) {
        return { delivery: deliveryToProto(await call(deps, getDelivery, { delivery_id: req.deliveryId }, ctx)) };
      },
      async resolve(req, ctx) {
        const input = req.resolutionNote === undefined ? { delivery_id: req.deliveryId } : { delivery_id: req.deliveryId, resolution_note: req.resolutionNote };
        return { delivery: deliveryToProto(await call(deps, resolveDelivery, input, ctx)) };
      },
      async supplement(req, ctx) {
        return { delivery: deliveryToProto(await call(deps, supplementDelivery, { delivery_id: req.deliveryId, markdown_body: req.markdownBody }, ctx)) };
      },
      // The input is the whole BulkEventRequest: violations already read `event.title`, `recipients.0.email`.
      async publishBulk(req, ctx) {
        const out = await call(deps, publishBulk, publishBulkToJson(req), ctx);
        return { results: out.results.map(bulkRowToProto), requestId: out.requestId };
      },
      async getTokenSelf(_req, ctx) {
        return tokenSelfToProto(await call(deps, getTokenSelf, {}, ctx));
      },
      async getDeliveryTrace(req, ctx) {
        return deliveryTraceToProto(await call(deps, getDeliveryTrace, { delivery_id: req.deliveryId }, ctx));
      },
    });

    router.service(ToolsTokenService, {
      async claimToken(req, ctx) {
        const out = await call(deps, claimToken, claimTokenRequestToJson(req), ctx);
        return { token: claimedTokenToProto(out), rotated: out.rotated };
      },
      async claimTokenBatch(req, ctx) {
        const out = await call(deps, claimTokenBatch, { claims: req.claims.map(claimTokenRequestToJson) }, ctx);
        return { results: out.results.map(claimBatchRowToProto), requestId: out.requestId };
      },
      async ping(_req, ctx) {
        return toolsPingToProto(await call(deps, pingToolsToken, {}, ctx));
      },
    });

    router.service(CatalogApprovalService, {
      async assignApproval(req, ctx) {
        return { approval: approvalToProto(await call(deps, assignCatalogApproval, { email: req.email, catalog_slug: req.catalogSlug }, ctx)) };
      },
      async listApprovals(req, ctx) {
        const out = await call(deps, listCatalogApprovals, defined({ email: req.email, catalog_slug: req.catalogSlug, status: req.status }), ctx);
        return { items: out.items.map(approvalToProto), requestId: out.requestId };
      },
      async revokeApproval(req, ctx) {
        return call(deps, revokeCatalogApproval, defined({ email: req.email, catalog_slug: req.catalogSlug, notify_employee: req.notifyEmployee }), ctx);
      },
      async reviewApproval(req, ctx) {
        return {
          approval: approvalToProto(
            await call(deps, reviewCatalogApproval, defined({ request_id: req.requestId, decision: req.decision, note: req.note }), ctx),
          ),
        };
      },
    });

    router.service(CatalogItemService, {
      async createItem(req, ctx) {
        const out = await call(deps, createCatalogItem, createItemToJson(req), ctx);
        return { item: catalogItemToProto(out.item), requestId: out.requestId };
      },
      async listItems(req, ctx) {
        const out = await call(deps, listCatalogItems, listItemsToJson(req), ctx);
        return { items: out.items.map(catalogItemToProto), totalCount: out.totalCount, requestId: out.requestId };
      },
      async getItem(req, ctx) {
        const out = await call(deps, getCatalogItem, { slug: req.slug }, ctx);
        return { item: catalogItemToProto(out.item), requestId: out.requestId };
      },
      async updateItem(req, ctx) {
        const out = await call(deps, updateCatalogItem, updateItemToJson(req), ctx);
        return { item: catalogItemToProto(out.item), requestId: out.requestId };
      },
      async deleteItem(req, ctx) {
        const out = await call(deps, deleteCatalogItem, defined({ slug: req.slug, hard: req.hard }), ctx);
        return {
          mode: out.mode,
          slug: out.slug,
          item: out.item ? catalogItemToProto(out.item) : undefined,
          alreadyArchived: out.already_archived,
          requestId: out.requestId,
        };
      },
    });

    router.service(IntegratorService, {
      async listIntegrators(_req, ctx) {
        const out = await call(deps, listIntegrators, {}, ctx);
        return { items: out.items.map(integratorToProto), totalCount: out.totalCount, requestId: out.requestId };
      },
      async listEventTypes(req, ctx) {
        return eventTypesToProto(await call(deps, listEventTypes, defined({ integrator_slug: req.integratorSlug }), ctx));
      },
    });

    // The caller's own account, authenticated with their agent token (`sk-svc-`).
    router.service(AccountService, {
      async issuePersonalToken(req, ctx) {
        const out = await call(deps, issueOwnPersonalToken, defined({ label: req.label, note: req.note, daily_limit: req.dailyLimit }), ctx);
        return { tokenId: out.token_id, tokenValue: out.token_value, endpointUrl: out.endpoint_url };
      },
      async listPersonalTokens(_req, ctx) {
        return { tokens: (await call(deps, listOwnTokens, {}, ctx)).items.map(personalTokenToProto) };
      },
      async disablePersonalToken(req, ctx) {
        return call(deps, disableOwnToken, { token_id: req.tokenId }, ctx);
      },
      async enablePersonalToken(req, ctx) {
        return call(deps, enableOwnToken, { token_id: req.tokenId }, ctx);
      },
      async rotatePersonalToken(req, ctx) {
        const out = await call(deps, rotateOwnToken, { token_id: req.tokenId }, ctx);
        return { tokenId: out.tokenId, token: out.token, expiresPriorAt: timestampFromDate(new Date(out.expiresPriorAt)), callbackSecret: out.callbackSecret };
      },
      async deletePersonalToken(req, ctx) {
        return call(deps, revokeOwnToken, { token_id: req.tokenId }, ctx);
      },
      async setPersonalTokenNudgeThreshold(req, ctx) {
        return call(deps, setOwnTokenNudgeThreshold, { token_id: req.tokenId, nudge_threshold: req.nudgeThreshold }, ctx);
      },
      async adminRevokeToken(req, ctx) {
        return call(deps, adminRevokeToken, defined({ token_id: req.tokenId, reason: req.reason }), ctx);
      },
      async adminListTokens(req, ctx) {
        const out = await call(deps, adminListTokens, defined({ kind: req.kind, include_revoked: req.includeRevoked, limit: req.limit }), ctx);
        return { tokens: out.items.map(adminTokenToProto) };
      },
      async offboardUser(req, ctx) {
        return call(deps, offboardUser, { email: req.email }, ctx);
      },
      async createAgentToken(req, ctx) {
        return call(deps, createOwnAgentToken, scopesRequestToJson(req), ctx);
      },
      async listAgentTokens(_req, ctx) {
        return { tokens: (await call(deps, listOwnAgentTokens, {}, ctx)).items.map(agentTokenToProto) };
      },
      async revokeAgentToken(req, ctx) {
        return call(deps, revokeOwnAgentToken, { token_id: req.tokenId }, ctx);
      },
      async startConnectSession(req, ctx) {
        const out = await call(deps, startConnectSession, scopesRequestToJson(req), ctx);
        return { sessionId: out.session_id, expiresAt: timestampFromDate(new Date(out.expires_at)) };
      },
      async clickAction(req, ctx) {
        return clickOutcomeToProto(await call(deps, clickAction, { delivery_id: req.deliveryId, action_index: req.actionIndex }, ctx));
      },
    });

    registerNotificationRoutes(router, deps);
    const registered = [
      ...registerWorkRoutes(router, deps),
      ...registerModerationRoutes(router, deps),
      ...registerInboxRoutes(router, deps),
      ...registerCatalogPortalRoutes(router, deps),
    ];

    const KNOWN = new Set([
      '',
      EventService.typeName,
      ToolsTokenService.typeName,
      CatalogApprovalService.typeName,
      CatalogItemService.typeName,
      IntegratorService.typeName,
      AccountService.typeName,
      NotificationSettingsService.typeName,
      Health.typeName,
      ...registered,
      ...REFLECTION_SERVICES,
    ]);
    registerHealth(router, deps, KNOWN);
    registerReflection(router);
  };
}
