// Pure rules of the webhook action callback (SPEC "Action callback (outgoing)", "Action callback
// body", Authentication 9): the exact bytes sent, their signature and the headers.
import { createHmac } from 'node:crypto';

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
