import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { SenderState, StoredAction } from './action-callback.rules.js';

export interface ClickTarget {
  deliveryId: string;
  eventType: string;
  actions: StoredAction[];
  /** The token that delivered the event: its callback secret signs the callback. */
  tokenId: string;
  callbackSecret: string;
  /** Whether that token could still send: a callback speaks for it. */
  sender: SenderState;
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
    token_status: string;
    token_kind: string;
    token_last_used_at: Date | string | null;
    token_created_at: Date | string;
    owner_status: string;
    integrator_archived_at: Date | string | null;
    email: string;
    name: string;
  }>(
    em,
    `select d.id, d.event_type, d.actions, d.token_id, t.callback_secret,
            t.status as token_status, t.kind as token_kind, t.last_used_at as token_last_used_at, t.created_at as token_created_at,
            o.status as owner_status, i.archived_at as integrator_archived_at, u.email, u.name
       from deliveries d
       join inbound_tokens t on t.id = d.token_id
       join users o on o.id = t.owner_user_id
       join integrators i on i.id = t.integrator_id
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
    sender: {
      tokenStatus: r.token_status,
      tokenKind: r.token_kind,
      tokenLastUsedAt: r.token_last_used_at,
      tokenCreatedAt: r.token_created_at,
      ownerStatus: r.owner_status,
      integratorArchivedAt: r.integrator_archived_at,
    },
    clickerEmail: r.email,
    clickerName: r.name,
  };
}
