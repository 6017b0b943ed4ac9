// A user's own inbound tokens (SPEC "Personal token lifecycle", Authentication 4-5), called with
// the user's agent token: issue, list (never values; the callback secret is visible to its owner),
// disable, enable, rotate (24 h overlap, new callback secret), delete (= revoke, permanent).
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { iso } from '../timestamps.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { mintSelfServiceToken, TokenNote } from './create-personal-token.js';
import { listOwnTokenRows, requireOwnToken } from './own-tokens.repository.js';
import { rotateTokenValue } from './rotate-token.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

const TokenIdInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });
type TokenIdInput = z.infer<typeof TokenIdInput>;
const ownOp = { auth: { kind: 'agent' } as const, budget: 'agent' as const, requiredScopes: ['write:inbox'] };

const endpointUrl = (ctx: OpContext) => `${ctx.config.publicBaseUrl}/api/internal-os/integrations/inbound/personal`;

export const IssueOwnTokenInput = z.strictObject({
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax),
  note: TokenNote.optional(),
  daily_limit: z.number().int().min(1).max(TOKEN_LIMITS.dailyLimitMax).default(TOKEN_LIMITS.claimDailyLimitDefault),
});

export const issueOwnPersonalToken = defineOperation<
  z.infer<typeof IssueOwnTokenInput>,
  { token_id: string; token_value: string; endpoint_url: string },
  AgentPrincipal
>({
  name: 'tokens.issue_own',
  ...ownOp,
  idempotent: false,
  writes: true,
  input: IssueOwnTokenInput,
  handler: async (input, ctx) => {
    const user = await requireUserByEmail(ctx.em, ctx.principal.userEmail);
    const t = await mintSelfServiceToken(ctx.em, ctx, user, { label: input.label, note: input.note ?? null, dailyLimit: input.daily_limit });
    return { token_id: t.tokenId, token_value: t.token, endpoint_url: endpointUrl(ctx) };
  },
});

export interface OwnTokenView {
  tokenId: string;
  kind: string;
  label: string;
  status: string;
  displayPrefix: string;
  dailyLimit: number;
  integratorId: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  callbackSecret: string;
  note: string | null;
}

export const listOwnTokens = defineOperation<Record<string, never>, { items: OwnTokenView[] }, AgentPrincipal>({
  name: 'tokens.list_own',
  ...ownOp,
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    const rows = await listOwnTokenRows(ctx.em, ctx.principal.userId);
    return {
      items: rows.map((r) => ({
        tokenId: r.id,
        kind: r.kind,
        label: r.label,
        status: r.status,
        displayPrefix: r.display_prefix,
        dailyLimit: r.daily_limit,
        integratorId: r.integrator_id,
        createdAt: iso(r.created_at),
        lastUsedAt: r.last_used_at === null ? null : iso(r.last_used_at),
        revokedAt: r.revoked_at === null ? null : iso(r.revoked_at),
        callbackSecret: r.callback_secret,
        note: r.note,
      })),
    };
  },
});

function setState(name: string, from: string, to: string) {
  return defineOperation<TokenIdInput, { tokenId: string; status: string }, AgentPrincipal>({
    name,
    ...ownOp,
    idempotent: true,
    writes: true,
    input: TokenIdInput,
    handler: async ({ token_id }, ctx) => {
      const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
      if (t.status === to) return { tokenId: t.id, status: t.status };
      if (t.status !== from) throw new DomainError('conflict', `token is ${t.status}`, { code: 'invalid_state' });
      t.status = to;
      return { tokenId: t.id, status: t.status };
    },
  });
}

/** Owner disables (recoverable) and re-enables (the operation the spec leaves open). */
export const disableOwnToken = setState('tokens.disable_own', 'active', 'disabled');
export const enableOwnToken = setState('tokens.enable_own', 'disabled', 'active');

/** Owner deletes: revoked, permanent, idempotent. */
export const revokeOwnToken = defineOperation<TokenIdInput, { revoked: true }, AgentPrincipal>({
  name: 'tokens.revoke_own',
  ...ownOp,
  idempotent: true,
  writes: true,
  input: TokenIdInput,
  handler: async ({ token_id }, ctx) => {
    const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
    if (t.status !== 'revoked') {
      t.status = 'revoked';
      t.revokedAt = ctx.clock.now();
      t.revokedReason = 'deleted by owner';
      recordAudit(ctx.em, ctx, {
        action: AUDIT.tokenRevoked,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'inbound_token',
        targetId: t.id,
        summary: { by: 'owner' },
      });
    }
    return { revoked: true as const };
  },
});

/** Owner rotates: new value works at once, the previous one for 24 h; a new callback secret. */
export const rotateOwnToken = defineOperation<TokenIdInput, { tokenId: string; token: string; expiresPriorAt: string; callbackSecret: string }, AgentPrincipal>(
  {
    name: 'tokens.rotate_own',
    ...ownOp,
    idempotent: false,
    writes: true,
    input: TokenIdInput,
    handler: async ({ token_id }, ctx) => {
      const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
      if (t.status !== 'active') throw new DomainError('conflict', `token is ${t.status}`, { code: 'invalid_state' });
      const now = ctx.clock.now();
      const token = rotateTokenValue(t, now);
      recordAudit(ctx.em, ctx, {
        action: AUDIT.tokenRotated,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'inbound_token',
        targetId: t.id,
        summary: { by: 'owner' },
      });
      return { tokenId: t.id, token, expiresPriorAt: t.priorValidUntil!.toISOString(), callbackSecret: t.callbackSecret };
    },
  },
);
