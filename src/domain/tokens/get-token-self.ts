// GET /api/v1/tokens/self (and Connect EventService/GetTokenSelf): a token's view of itself, so a
// sender is not blind to its own limits. Any inbound token (personal, moderation, tools); agent
// tokens have whoami. Counted as one read of the `request` budget, like the read-back; the other
// windows are peeked, never counted. Never a token value, hash or secret.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { notFound } from '../errors.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { BUDGET_NAMES, RATE_BUDGETS, type BudgetName, type CallerKind } from '../rate-budgets.rules.js';
import { iso, isoOrNull } from '../timestamps.js';
import { AUDIT } from '../audit/audit.js';
import { MAX_INBOX_PER_USER_PER_DAY, utcDay } from '../nudges/nudge.rules.js';
import { countPublishOutcomes } from './circuit-breaker.repository.js';
import { windowStart } from './circuit-breaker.rules.js';
import { INACTIVITY_EXPIRY_MS } from './token-lifecycle.rules.js';
import { findTokenSelf } from './token-self.repository.js';
import type { RateWindowReader } from '../ports.js';

const PerMinuteSchema = z.strictObject({
  budget: z.string(),
  limit: z.number().int(),
  remaining: z.number().int().min(0),
  resetAtUnix: z.number().int(),
});

export const TokenSelfSchema = z.strictObject({
  tokenId: z.uuid(),
  kind: z.enum(['personal', 'moderation', 'tools_claim']),
  label: z.string(),
  owner: z.strictObject({ userId: z.uuid(), email: z.string() }),
  integrator: z.strictObject({ slug: z.string(), allowedEventPrefix: z.string() }),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  /** When the token expires if it stays unused (12 months after its last use); null for tools-tokens, which do not expire. */
  expiresAt: z.iso.datetime().nullable(),
  /** End of the rotation overlap (the previous value is accepted until then); null when there is none. */
  previousValidUntil: z.iso.datetime().nullable(),
  limits: z.strictObject({
    /** Every per-minute window of the budgets this token counts against (publish, request); null when the rate-limit store is unreachable. */
    perMinute: z.array(PerMinuteSchema).nullable(),
    /** The token's daily limit of new deliveries (UTC day); null for tools-tokens, which publish no single events. */
    daily: z.strictObject({ limit: z.number().int(), used: z.number().int().min(0), resetAtUnix: z.number().int() }).nullable(),
    /** The owner's inbox rows today (all their tokens); null for moderation tokens (held events do not count) and tools-tokens. */
    userDaily: z.strictObject({ limit: z.number().int(), used: z.number().int().min(0) }).nullable(),
  }),
  circuitBreaker: z.strictObject({
    state: z.enum(['closed', 'open']),
    /** Rejected events counted towards the breaker: the last hour, or since its last reset or trip if later. */
    failuresLastHour: z.number().int().min(0),
    /** failures / (failures + accepted events) over the same span; 0 when there were none. */
    failureRate: z.number().min(0).max(1),
  }),
  requestId: z.string(),
});
export type TokenSelf = z.infer<typeof TokenSelfSchema>;

const INBOUND_MINUTE_BUDGETS: readonly BudgetName[] = BUDGET_NAMES.filter(
  (n) => (RATE_BUDGETS[n].appliesTo as readonly CallerKind[]).includes('inbound_token') && RATE_BUDGETS[n].windows.some((w) => w.per === 'minute'),
);

const nextUtcMidnight = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);

export const getTokenSelf = defineOperation<Record<string, never>, TokenSelf, InboundTokenPrincipal>({
  name: 'tokens.self',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation', 'tools_claim'], whileSuspended: true },
  budget: 'request',
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    const now = ctx.clock.now();
    const p = ctx.principal;
    const row = await findTokenSelf(ctx.em, p.tokenId, utcDay(now));
    if (!row) throw notFound('token');
    const from = windowStart(now, row.breaker_since === null ? null : new Date(row.breaker_since));
    const { failures, successes } = await countPublishOutcomes(ctx.em, p.tokenId, from.toISOString(), now.toISOString(), {
      rejected: AUDIT.eventRejected,
      received: AUDIT.eventReceived,
      deduped: AUDIT.eventDeduped,
    });
    const perMinute = await peekMinuteWindows(ctx.ports.rateWindows, p.tokenId, now.getTime()).catch((err: unknown) => {
      ctx.log.warn({ err: { message: (err as Error).message } }, 'rate-limit store unavailable; tokens/self reports no windows');
      return null;
    });
    const kind = row.kind as TokenSelf['kind'];
    const expiring = kind !== 'tools_claim';
    const prior = row.prior_valid_until !== null && new Date(row.prior_valid_until) > now ? iso(row.prior_valid_until) : null;
    return {
      tokenId: row.id,
      kind,
      label: row.label,
      owner: { userId: row.user_id, email: row.email },
      integrator: { slug: row.slug, allowedEventPrefix: row.allowed_event_prefix },
      createdAt: iso(row.created_at),
      lastUsedAt: isoOrNull(row.last_used_at),
      expiresAt: expiring ? new Date(new Date(row.last_used_at ?? row.created_at).getTime() + INACTIVITY_EXPIRY_MS).toISOString() : null,
      previousValidUntil: prior,
      limits: {
        perMinute,
        daily: kind === 'tools_claim' ? null : { limit: row.daily_limit, used: Number(row.token_day ?? 0), resetAtUnix: nextUtcMidnight(now) / 1000 },
        userDaily: kind === 'personal' ? { limit: MAX_INBOX_PER_USER_PER_DAY, used: Number(row.user_day ?? 0) } : null,
      },
      circuitBreaker: {
        state: row.breaker_open_until !== null && now < new Date(row.breaker_open_until) ? 'open' : 'closed',
        failuresLastHour: failures,
        failureRate: failures + successes === 0 ? 0 : failures / (failures + successes),
      },
      requestId: ctx.requestId,
    };
  },
});

async function peekMinuteWindows(reader: RateWindowReader, tokenId: string, nowMs: number): Promise<TokenSelf['limits']['perMinute']> {
  const out: NonNullable<TokenSelf['limits']['perMinute']> = [];
  for (const budget of INBOUND_MINUTE_BUDGETS) {
    const states = await reader.peek(budget, tokenId, nowMs);
    RATE_BUDGETS[budget].windows.forEach((w, i) => {
      const s = states[i];
      if (w.per === 'minute' && s) out.push({ budget, limit: s.limit, remaining: s.remaining, resetAtUnix: Math.ceil(s.resetAtMs / 1000) });
    });
  }
  return out;
}
