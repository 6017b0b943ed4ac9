import { defineEntity, p } from '@mikro-orm/core';
import { TOKEN_COLUMNS, TOKEN_LIMITS } from './tokens.limits.js';

/** Registry of integrators; each personal token belongs to one and carries its event prefix. */
export const IntegratorSchema = defineEntity({
  name: 'Integrator',
  tableName: 'integrators',
  properties: {
    id: p.uuid().primary(),
    slug: p.string().length(TOKEN_LIMITS.integratorSlugMax).unique(),
    name: p.string().length(TOKEN_LIMITS.integratorNameMax),
    /** The integrator's slug and a dot. */
    allowedEventPrefix: p.string().length(TOKEN_LIMITS.integratorSlugMax + 1),
    homepageUrl: p.string().length(TOKEN_LIMITS.integratorHomepageUrlMax).nullable(),
    description: p.text().nullable(),
    createdAt: p.datetime(),
    archivedAt: p.datetime().nullable(),
  },
});
export class Integrator extends IntegratorSchema.class {}
IntegratorSchema.setClass(Integrator);

/**
 * Inbound tokens (personal, moderation, tools_claim). The row id is stable across rotation:
 * rotation replaces `tokenHash` and keeps the previous hash valid until `priorValidUntil`.
 */
export const InboundTokenSchema = defineEntity({
  name: 'InboundToken',
  tableName: 'inbound_tokens',
  properties: {
    id: p.uuid().primary(),
    kind: p.string().length(TOKEN_COLUMNS.kind),
    tokenHash: p.string().length(64).unique(),
    priorTokenHash: p.string().length(64).nullable().unique(),
    priorValidUntil: p.datetime().nullable(),
    displayPrefix: p.string().length(20),
    ownerUserId: p.uuid(),
    integratorId: p.uuid(),
    label: p.string().length(TOKEN_LIMITS.labelMax),
    note: p.text().nullable(),
    dailyLimit: p.integer(),
    status: p.string().length(TOKEN_COLUMNS.status),
    callbackSecret: p.string().length(64).hidden(),
    createdAt: p.datetime(),
    rotatedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.string().length(TOKEN_LIMITS.revokeReasonMax).nullable(),
    /** Set on personal tokens minted by a tools-token claim. */
    claimedByToolsTokenId: p.uuid().nullable(),
    /** The approved request a claimed token was minted under (revoking it invalidates the token). */
    approvalId: p.uuid().nullable(),
  },
});
export class InboundToken extends InboundTokenSchema.class {}
InboundTokenSchema.setClass(InboundToken);

/** Agent tokens (`sk-svc-`) for /mcp: bound to one user, scoped, no rotation grace. */
export const AgentTokenSchema = defineEntity({
  name: 'AgentToken',
  tableName: 'agent_tokens',
  properties: {
    id: p.uuid().primary(),
    tokenHash: p.string().length(64).unique(),
    displayPrefix: p.string().length(20),
    userId: p.uuid(),
    label: p.string().length(TOKEN_LIMITS.labelMax),
    scopes: p.json<string[]>(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export class AgentToken extends AgentTokenSchema.class {}
AgentTokenSchema.setClass(AgentToken);
