// ClickAction: the user clicks a `webhook` action button of one of their own deliveries; the
// service POSTs the signed callback body to the action's webhook_url and reports the receiver's
// status for the toast (SPEC "Action callback (outgoing)", "Action callback body", ActionButton,
// Authentication 9, Limits: callback timeout 5 s). A sender that may no longer send (revoked,
// disabled or expired token, inactive owner, archived integrator) is not called back: refused
// before any request, and audited. Not a writing operation: no transaction is held while the
// receiver answers; each audit row is one statement, written at once.
import { z } from 'zod';
import { defineOperation, type Operation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound, validationFailed } from '../errors.js';
import { insertAudit } from '../audit/audit.js';
import {
  actionTypeOf,
  callbackBodyBytes,
  callbackHeaders,
  SENDER_INACTIVE_MESSAGE,
  senderInactiveReason,
  type ActionCallbackBody,
} from './action-callback.rules.js';
import { findOwnClickTarget } from './actions.repository.js';
import type { CallbackOutcome, CallbackSender } from './callback-sender.js';

export const AUDIT_ACTION_CLICKED = 'inbound.action.clicked';
/** A click refused before any request (the sender is no longer active); the summary names the reason. */
export const AUDIT_ACTION_REFUSED = 'inbound.action.refused';

export const ClickActionInput = z.strictObject({
  delivery_id: z.uuid({ error: 'must be a UUID' }),
  // At most 4 actions per event (SPEC ActionButton), so 0-3.
  action_index: z.number().int().min(0).max(3),
});
export type ClickActionInput = z.infer<typeof ClickActionInput>;

/** Built with the sender of AppDeps (the SSRF-guarded egress client in production). */
export function clickActionOperation(sender: CallbackSender): Operation<ClickActionInput, CallbackOutcome, AgentPrincipal> {
  return defineOperation<ClickActionInput, CallbackOutcome, AgentPrincipal>({
    name: 'actions.click',
    auth: { kind: 'agent' },
    budget: 'agent',
    // Acting on one's own inbox (SPEC scope `write:inbox`).
    requiredScopes: ['write:inbox'],
    // Every click is a new POST the receiver may act on; never replayed from a key.
    idempotent: false,
    input: ClickActionInput,
    handler: async (input, ctx) => {
      const target = await findOwnClickTarget(ctx.em, ctx.principal.userId, input.delivery_id);
      if (!target) throw notFound('delivery');
      const action = target.actions[input.action_index];
      if (!action) {
        throw validationFailed([
          {
            field: 'action_index',
            code: 'out_of_range',
            message: `the delivery has ${target.actions.length} action(s); index ${input.action_index} does not exist`,
          },
        ]);
      }
      if (actionTypeOf(action) !== 'webhook' || !action.webhook_url) {
        throw new DomainError('unprocessable', 'this action opens a URL; only webhook actions can be clicked here', { code: 'not_webhook_action' });
      }
      const inactive = senderInactiveReason(target.sender, ctx.clock.now());
      if (inactive) {
        await insertAudit(ctx.em, ctx, {
          action: AUDIT_ACTION_REFUSED,
          actorUserId: ctx.principal.userId,
          tokenId: target.tokenId,
          targetType: 'delivery',
          targetId: target.deliveryId,
          summary: { action_index: input.action_index, action_label: action.label, target_host: hostOf(action.webhook_url), reason: inactive },
        });
        throw new DomainError('unprocessable', SENDER_INACTIVE_MESSAGE, { code: 'sender_inactive' });
      }
      const body: ActionCallbackBody = {
        delivery_id: target.deliveryId,
        action_label: action.label,
        action_index: input.action_index,
        clicked_at: ctx.clock.now().toISOString(),
        clicked_by: { email: target.clickerEmail, name: target.clickerName },
        event_type: target.eventType,
      };
      const raw = callbackBodyBytes(body);
      const outcome = await sender.post(action.webhook_url, raw, callbackHeaders(target.callbackSecret, raw));

      await insertAudit(ctx.em, ctx, {
        action: AUDIT_ACTION_CLICKED,
        actorUserId: ctx.principal.userId,
        tokenId: target.tokenId,
        targetType: 'delivery',
        targetId: target.deliveryId,
        summary: {
          action_index: input.action_index,
          action_label: action.label,
          target_host: hostOf(action.webhook_url),
          status: outcome.status,
          ok: outcome.ok,
          error: outcome.error ?? null,
        },
      });
      return outcome.error ? { status: outcome.status, ok: outcome.ok, error: outcome.error } : { status: outcome.status, ok: outcome.ok };
    },
  });
}

/** Host only: a URL path or query may carry receiver-side identifiers that do not belong in the audit. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
