// Pure rules of the webhook action callback (SPEC "Action callback (outgoing)", "Action callback
// body", Authentication 9): who may still be called back, the exact bytes sent, their signature
// and the headers.
import { createHmac } from 'node:crypto';
import { isInactiveExpired } from '../tokens/token-lifecycle.rules.js';

export const CALLBACK_USER_AGENT = 'fluxdesk-Inbox-Callback/v2';
export const CALLBACK_CONTENT_TYPE = 'application/json; charset=utf-8';
export const SIGNATURE_HEADER = 'x-svc-signature';

export interface ActionCallbackBody {
  delivery_id: string;
  action_label: string;
  action_index: number;
  /** ISO 8601 UTC (`...Z`). */
  clicked_at: string;
  clicked_by: { email: string; name: string };
  event_type: string;
}

/** A stored ActionButton (deliveries.actions jsonb); rows predating the default lack action_type. */
export interface StoredAction {
  label: string;
  action_type?: 'url' | 'webhook';
  url?: string;
  webhook_url?: string;
}

export function actionTypeOf(a: StoredAction): 'url' | 'webhook' {
  return a.action_type ?? 'url';
}

/** The token that sent the event, as a click finds it: its own state, its owner's and its integrator's. */
export interface SenderState {
  tokenStatus: string;
  tokenKind: string;
  tokenLastUsedAt: Date | string | null;
  tokenCreatedAt: Date | string;
  ownerStatus: string;
  integratorArchivedAt: Date | string | null;
}

export type SenderInactiveReason = 'token_revoked' | 'token_disabled' | 'token_expired' | 'token_inactive' | 'owner_inactive' | 'integrator_archived';

/** What the clicker is told when the sender may no longer be called back (the web app shows it as is). */
export const SENDER_INACTIVE_MESSAGE = "The sender's integration is no longer active.";

/**
 * Why a callback on behalf of this sender is refused, or null when it may go. A signed callback
 * speaks for the token that sent the event, so it goes only while that token could still send:
 * active (not revoked, disabled or expired after 12 months unused, the same rules as
 * token-lifecycle.rules.ts isUsable), its owner active, its integrator not archived.
 */
export function senderInactiveReason(s: SenderState, now: Date): SenderInactiveReason | null {
  if (s.tokenStatus === 'revoked') return 'token_revoked';
  if (s.tokenStatus === 'disabled') return 'token_disabled';
  if (s.tokenStatus === 'auto_expired' || isInactiveExpired({ kind: s.tokenKind, last_used_at: s.tokenLastUsedAt, created_at: s.tokenCreatedAt }, now)) {
    return 'token_expired';
  }
  // A status this rule does not know is not `active`: refused rather than guessed at.
  if (s.tokenStatus !== 'active') return 'token_inactive';
  if (s.ownerStatus !== 'active') return 'owner_inactive';
  if (s.integratorArchivedAt !== null) return 'integrator_archived';
  return null;
}

/** The raw body: UTF-8 JSON, serialised once; the signature covers exactly these bytes. */
export function callbackBodyBytes(body: ActionCallbackBody): Buffer {
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** `sha256=<hex HMAC-SHA256 of the raw body keyed with the sending token's callback secret>`. */
export function callbackSignature(secret: string, raw: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

export function callbackHeaders(secret: string, raw: Uint8Array): Record<string, string> {
  return {
    'content-type': CALLBACK_CONTENT_TYPE,
    [SIGNATURE_HEADER]: callbackSignature(secret, raw),
    'user-agent': CALLBACK_USER_AGENT,
  };
}
