// POST /api/v1/events/bulk (SPEC BulkEventRequest, BulkEventDeliveryResult): one template event
// fanned out to 1-EVENT_LIMITS.bulkRecipientsMax recipients with an admin tools-token, each under its own claimed personal
// token (dedup per recipient and event_id). The transaction boundaries (one claim batch, then one
// statement for every delivery; a failed recipient never blocks another): inbound protocol 13.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, type Issue } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { claimMany } from '../tokens/claim.js';
import { normalizeEmail } from '../users/users.rules.js';
import { eventContextIssues, InboundEventSchema, type InboundEvent } from './event-validation.rules.js';
import { FORBIDDEN_EVENT_KEYS, LEGACY_EVENT_KEYS, EVENT_LIMITS } from './event.limits.js';
import { newDelivery } from './events.repository.js';
import type { NewDelivery } from './event-store.js';
import {
  findClaimedTokens,
  findGroupMemberEmails,
  findProjectBySlug,
  findProjectMembers,
  findRecipientUsers,
  type RecipientUserRow,
} from './bulk-recipients.repository.js';
import { utcDay } from '../nudges/nudge.rules.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

export const BulkRecipientSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('email'), email: z.email({ error: 'must be a valid email address' }).max(EVENT_LIMITS.emailMax) }),
  z.strictObject({ type: z.literal('user_id'), user_id: z.uuid({ error: 'must be a UUID' }) }),
  z.strictObject({ type: z.literal('group'), slug: z.string().min(1).max(EVENT_LIMITS.projectSlugMax) }),
]);

export const BulkEventRequestSchema = z.strictObject({
  event: InboundEventSchema,
  recipients: z.array(BulkRecipientSchema).min(1).max(EVENT_LIMITS.bulkRecipientsMax),
  auto_claim: z.boolean().default(true),
});
export type BulkEventRequest = z.infer<typeof BulkEventRequestSchema>;

export const BulkEventDeliveryResultSchema = z.object({
  email: z.string(),
  deliveryId: z.uuid().optional(),
  deduped: z.boolean().optional(),
  pushed: z.boolean().optional(),
  autoClaimed: z.literal(true).optional(),
  error: z.string().optional(),
  userId: z.uuid().optional(),
  /** Over the recipient token's daily_limit or the user's daily inbox limit: inbox only, no nudge. */
  degraded: z.literal(true).optional(),
});
export type BulkRow = z.infer<typeof BulkEventDeliveryResultSchema>;
export const BulkEventResponseSchema = z.strictObject({ results: z.array(BulkEventDeliveryResultSchema), requestId: z.string() });

interface Target {
  email: string;
  userId?: string;
  lookupEmail?: string;
}

type UserRow = RecipientUserRow;

const prefixIssues = (issues: Issue[], prefix: string): Issue[] => issues.map((i) => ({ ...i, field: i.field ? `${prefix}.${i.field}` : prefix }));

export const publishBulk = defineOperation<BulkEventRequest, { results: BulkRow[]; requestId: string }, InboundTokenPrincipal>({
  name: 'events.publish_bulk',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  input: BulkEventRequestSchema,
  keyPolicy: { forbidden: FORBIDDEN_EVENT_KEYS, legacy: LEGACY_EVENT_KEYS, at: 'event' },
  contextRules: (raw, ctx) => {
    const ev = (raw as { event?: unknown } | null)?.event;
    // Recipients are explicit per row: the template carries neither recipient nor recipient_hint.
    return prefixIssues(
      eventContextIssues(ev, {
        channel: 'v1',
        tokenKind: 'personal',
        allowedEventPrefix: ctx.principal.allowedEventPrefix,
        now: ctx.clock.now(),
        egressAllowHosts: ctx.config.egressAllowHosts,
      }),
      'event',
    );
  },
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const project = input.event.project_slug ? await loadProject(ctx, input.event.project_slug) : null;
    const targets = await expandRecipients(ctx, input.recipients);

    // One read for users and one for their claimed tokens of this integrator.
    const emails = [...new Set(targets.flatMap((t) => (t.lookupEmail ? [t.lookupEmail] : [])))];
    const ids = [...new Set(targets.flatMap((t) => (t.userId ? [t.userId] : [])))];
    const users = await findRecipientUsers(ctx.em, emails, ids);
    const byEmail = new Map(users.map((u) => [u.email, u]));
    const byId = new Map(users.map((u) => [u.id, u]));
    const tokens = users.length
      ? await findClaimedTokens(
          ctx.em,
          ctx.principal.integratorId,
          users.map((u) => u.id),
        )
      : [];
    const tokenByUser = new Map<string, (typeof tokens)[number]>();
    for (const t of tokens) if (!tokenByUser.has(t.owner_user_id)) tokenByUser.set(t.owner_user_id, t);
    const members = project
      ? await findProjectMembers(
          ctx.em,
          project.id,
          users.map((u) => u.id),
        )
      : null;

    const rows: BulkRow[] = new Array(targets.length);
    const pending: Array<{ index: number; user: UserRow; tokenId: string; autoClaimed: boolean }> = [];
    const toClaim: Array<{ index: number; user: UserRow }> = [];
    for (const [index, t] of targets.entries()) {
      const user = t.userId ? byId.get(t.userId) : byEmail.get(t.lookupEmail!);
      if (!user) {
        rows[index] = { email: t.email, ...(t.userId ? { userId: t.userId } : {}), error: 'user_not_found' };
        continue;
      }
      const email = user.email;
      if (user.status !== 'active') rows[index] = { email, error: 'user_inactive' };
      else if (members && !members.has(user.id)) rows[index] = { email, error: 'cross_project_blocked' };
      else {
        const tok = tokenByUser.get(user.id);
        if (tok?.status === 'disabled') rows[index] = { email, error: 'token_disabled' };
        else if (tok?.breaker_open_until && ctx.clock.now() < new Date(tok.breaker_open_until)) rows[index] = { email, error: 'circuit_open' };
        else if (tok) pending.push({ index, user, tokenId: tok.id, autoClaimed: false });
        else if (!input.auto_claim) rows[index] = { email, error: 'no_approved_request' };
        else toClaim.push({ index, user });
      }
    }
    if (toClaim.length > 0) {
      // One claim for every recipient without a token (a recipient named twice is claimed once;
      // only its first row reports autoClaimed), then back to request order.
      const claimed = await autoClaim(ctx, [...new Set(toClaim.map((c) => c.user.email))]);
      const seen = new Set<string>();
      for (const { index, user } of toClaim) {
        const c = claimed.get(user.email)!;
        if ('error' in c) rows[index] = { email: user.email, error: c.error };
        else pending.push({ index, user, tokenId: c.tokenId, autoClaimed: c.minted && !seen.has(user.id) });
        seen.add(user.id);
      }
      pending.sort((a, b) => a.index - b.index);
    }

    // The same user named twice shares one delivery: write each (token, event_id) once.
    const unique = [...new Map(pending.map((p) => [p.tokenId, p])).values()];
    if (unique.length > 0) {
      const now = ctx.clock.now();
      const written = await ctx.ports.events.publishMany(
        ctx.em,
        unique.map((p) => toNewDelivery(input.event, ctx.principal, p.user.id, p.tokenId, project?.id ?? null)),
        {
          now: now.toISOString(),
          day: utcDay(now),
          source: ctx.surface,
          requestId: ctx.requestId,
        },
      );
      // After the commit: each recipient's open inboxes learn of its row (fire and forget).
      ctx.afterCommit(() => {
        for (const d of written) ctx.ports.inboxFeed.changed(d.recipient_user_id, { deliveryIds: [d.id] });
      });
      const byToken = new Map(unique.map((p, i) => [p.tokenId, written[i]!]));
      const firstIndex = new Map<string, number>();
      for (const p of pending) {
        const d = byToken.get(p.tokenId)!;
        const first = firstIndex.get(p.tokenId) === undefined;
        firstIndex.set(p.tokenId, p.index);
        rows[p.index] = {
          email: p.user.email,
          deliveryId: d.id,
          deduped: !(first && d.inserted === true),
          // Truthful: a nudge was queued for this recipient (only the first row of a repeated recipient).
          pushed: first && d.pushed === true,
          ...(first && d.degraded === true ? { degraded: true } : {}),
          ...(p.autoClaimed && first ? { autoClaimed: true as const } : {}),
        };
      }
    }
    return { results: rows, requestId: ctx.requestId };
  },
});

// Recipients are explicit rows: the template never carries recipient or recipient_hint.
const toNewDelivery = (ev: InboundEvent, tools: InboundTokenPrincipal, userId: string, tokenId: string, projectId: string | null): NewDelivery =>
  newDelivery(ev, { tokenId, integratorId: tools.integratorId, recipientUserId: userId, projectId });

const BULK_CLAIM_ERRORS: ReadonlySet<string> = new Set(['no_approved_request', 'user_not_found', 'user_inactive', 'domain_not_allowed']);

type AutoClaimed = { tokenId: string; minted: boolean } | { error: string };

/**
 * Mint inline for many recipients: one set-based claim (claim.ts, its own transaction); a refused
 * row becomes that recipient's error code. A token claimed meanwhile (concurrent claim or bulk) is
 * used as it is, never rotated. An unexpected failure of the claim fails every one of these
 * recipients with auto_claim_lookup_failed (nothing of it was stored), never the request.
 */
async function autoClaim(ctx: OpContext<InboundTokenPrincipal>, emails: string[]): Promise<Map<string, AutoClaimed>> {
  const out = new Map<string, AutoClaimed>();
  let results: Awaited<ReturnType<typeof claimMany>>;
  try {
    results = await claimMany(
      ctx,
      emails.map((email) => ({ email, daily_limit: TOKEN_LIMITS.claimDailyLimitDefault, reuseExisting: true })),
    );
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message } }, 'auto-claim lookup failed');
    for (const email of emails) out.set(email, { error: 'auto_claim_lookup_failed' });
    return out;
  }
  for (const [i, r] of results.entries()) {
    const email = emails[i]!;
    if (r.ok) out.set(email, { tokenId: r.value.tokenId, minted: r.value.reused !== true });
    else if (BULK_CLAIM_ERRORS.has(r.error.code)) out.set(email, { error: r.error.code === 'domain_not_allowed' ? 'no_approved_request' : r.error.code });
    else {
      ctx.log.warn({ err: { message: r.error.message } }, 'auto-claim lookup failed');
      out.set(email, { error: 'auto_claim_lookup_failed' });
    }
  }
  return out;
}

async function expandRecipients(ctx: OpContext<InboundTokenPrincipal>, recipients: BulkEventRequest['recipients']): Promise<Target[]> {
  const out: Target[] = [];
  for (const [i, r] of recipients.entries()) {
    if (r.type === 'email') out.push({ email: normalizeEmail(r.email), lookupEmail: normalizeEmail(r.email) });
    else if (r.type === 'user_id') out.push({ email: '', userId: r.user_id });
    else {
      // A group is a project: the caller is an org admin (admin tools-token), so it may address
      // any project's members. Unknown groups refuse the whole request before anything is written.
      const emails = await findGroupMemberEmails(ctx.em, r.slug);
      if (emails === null)
        throw new DomainError('validation', `unknown group "${r.slug}"`, {
          code: 'schema_invalid',
          issues: [{ field: `recipients[${i}].slug`, code: 'unknown_group', message: `no active project or group "${r.slug}"` }],
        });
      for (const email of emails) out.push({ email, lookupEmail: email });
    }
  }
  if (out.length > EVENT_LIMITS.bulkRecipientsMax) {
    throw new DomainError('validation', `at most ${EVENT_LIMITS.bulkRecipientsMax} recipients after expanding groups`, {
      code: 'schema_invalid',
      issues: [{ field: 'recipients', code: 'too_many', message: `expands to ${out.length} recipients; at most ${EVENT_LIMITS.bulkRecipientsMax}` }],
    });
  }
  return out;
}

async function loadProject(ctx: OpContext<InboundTokenPrincipal>, slug: string): Promise<{ id: string }> {
  const p = await findProjectBySlug(ctx.em, slug);
  if (!p) throw new DomainError('forbidden', `project "${slug}" not found`, { code: 'cross_project_blocked', extra: { reason: 'project_not_found' } });
  if (p.archived_at !== null)
    throw new DomainError('forbidden', `project "${slug}" is archived`, { code: 'cross_project_blocked', extra: { reason: 'project_archived' } });
  return { id: p.id };
}
