import { LockMode, type EntityManager } from '@mikro-orm/core';
import { notFound } from '../errors.js';
import { InboundToken } from './tokens.entity.js';

/** The caller's own inbound token, locked for update; another user's id is simply not found. */
export async function requireOwnToken(em: EntityManager, ownerUserId: string, tokenId: string): Promise<InboundToken> {
  const t = await em.findOne(InboundToken, { id: tokenId, ownerUserId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!t) throw notFound('token');
  return t;
}
