import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { StoredAction } from './action-callback.rules.js';

export interface ClickTarget {
  deliveryId: string;
  eventType: string;
  actions: StoredAction[];
  /** The token that delivered the event: its callback secret signs the callback. */
  tokenId: string;
  callbackSecret: string;
  clickerEmail: string;
  clickerName: string;
}

/** One of the user's own deliveries with what a click needs; another user's is simply absent. */
export async function findOwnClickTarget(em: EntityManager, userId: string, deliveryId: string): Promise<ClickTarget | undefined> {
  const rows = await run<{
    id: string;
    event_type: string;
    actions: StoredAction[] | string | null;
    token_id: string;
    callback_secret: string;
    email: string;
    name: string;
  }>(
    em,
    `select d.id, d.event_type, d.actions, d.token_id, t.callback_secret, u.email, u.name
       from deliveries d
       join inbound_tokens t on t.id = d.token_id
       join users u on u.id = d.recipient_user_id
      where d.id = ? and d.recipient_user_id = ?`,
    [deliveryId, userId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    deliveryId: r.id,
    eventType: r.event_type,
    actions: typeof r.actions === 'string' ? (JSON.parse(r.actions) as StoredAction[]) : (r.actions ?? []),
    tokenId: r.token_id,
    callbackSecret: r.callback_secret,
    clickerEmail: r.email,
    clickerName: r.name,
  };
}
