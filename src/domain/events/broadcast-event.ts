// `broadcast_event` (SPEC C write tools; admin only, scope admin:broadcast): one event to up to
// 100 people by email, through the bulk fan-out of POST /api/v1/events/bulk run with a tools-token
// the CALLER owns (`tools_token_id`); without one every row is `no_token`. Failures carry an
// `error_envelope` (broadcast-envelope.rules.ts). A given `event_id_prefix` makes retries dedup.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, type Issue } from '../errors.js';
import { addWebhookTargetIssues, InboundEventSchema } from './event-validation.rules.js';
import { publishBulk, type BulkRow } from './publish-bulk.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { normalizeEmail } from '../users/users.rules.js';
import { errorEnvelope, rowErrorField, type ErrorEnvelope } from './broadcast-envelope.rules.js';
import { principalForToolsToken } from '../tokens/tools-principal.js';
import { insertToolAudit } from '../audit/tool-audit.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { EVENT_LIMITS } from './event.limits.js';

const E = InboundEventSchema.shape;
export const BROADCAST_MAX_RECIPIENTS = EVENT_LIMITS.bulkRecipientsMax;

export const BroadcastEventInput = z.strictObject({
  recipients: z
    .array(z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax))
    .min(1)
    .max(BROADCAST_MAX_RECIPIENTS),
  event_type: E.event_type,
  severity: E.severity,
  title: E.title,
  summary: E.summary,
  markdown_body: E.markdown_body,
  actions: E.actions,
  event_id_prefix: z
    .string()
    .min(1)
    .max(EVENT_LIMITS.eventIdPrefixMax)
    .regex(/^[a-zA-Z0-9_-]+$/, { error: 'must match ^[a-zA-Z0-9_-]+$' })
    .optional(),
  project_slug: E.project_slug,
  tools_token_id: z.uuid({ error: 'must be a UUID' }).optional(),
  auto_claim: z.boolean().default(true),
});
export type BroadcastEventInput = z.infer<typeof BroadcastEventInput>;

export const ErrorEnvelopeSchema = z.object({
  code: z.string(),
  title: z.string(),
  detail: z.string(),
  field: z.string().nullable(),
  next_action: z.string().optional(),
});

export const BroadcastRow = z.object({
  email: z.string(),
  deliveryId: z.uuid().optional(),
  deduped: z.boolean().optional(),
  pushed: z.boolean().optional(),
  autoClaimed: z.literal(true).optional(),
  error: z.string().optional(),
  error_envelope: ErrorEnvelopeSchema.optional(),
});
type BroadcastRow = z.infer<typeof BroadcastRow>;

export const BroadcastEventOutput = z.object({
  /** Every recipient was delivered (or deduped). */
  ok: z.boolean(),
  event_id: z.string(),
  delivered: z.array(BroadcastRow),
});
export type BroadcastEventResult = z.infer<typeof BroadcastEventOutput>;

/** A top-level refusal in the tool result: the flat error plus its error_envelope. */
function refusal(kind: 'forbidden' | 'validation', message: string, env: ErrorEnvelope, issues: Issue[] = []): DomainError {
  return new DomainError(kind, message, {
    code: env.code === 'schema_invalid' ? 'event_invalid' : env.code,
    issues,
    extra: { field: env.field ?? undefined, error_envelope: env },
  });
}

/**
 * `<event_id_prefix>-<hash of the event content>` when a prefix is given, so a retried call dedups
 * per recipient (`deduped: true`); otherwise `broadcast-<random>` (a new event per call).
 */
export function broadcastEventId(
  input: Pick<BroadcastEventInput, 'event_id_prefix' | 'event_type' | 'severity' | 'title' | 'summary' | 'markdown_body' | 'project_slug'>,
): string {
  if (input.event_id_prefix === undefined) return `broadcast-${randomBytes(8).toString('hex')}`;
  const content = JSON.stringify([
    input.event_type,
    input.severity,
    input.title,
    input.summary ?? null,
    input.markdown_body ?? null,
    input.project_slug ?? null,
  ]);
  return `${input.event_id_prefix}-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
}

/** Bulk field paths -> this tool's input names (`event.title` -> `title`, `recipients[3].email` -> `recipients[3]`). */
const toolField = (field: string) => field.replace(/^event\./, '').replace(/^(recipients\[\d+\])\.email$/, '$1');

const toRow = (r: BulkRow, index: number): BroadcastRow => {
  if (r.error !== undefined) return { email: r.email, error: r.error, error_envelope: errorEnvelope(r.error, rowErrorField(r.error, index)) };
  const row: BroadcastRow = { email: r.email, deliveryId: r.deliveryId, deduped: r.deduped, pushed: r.pushed };
  if (r.autoClaimed) row.autoClaimed = true;
  return row;
};

export const broadcastEvent = defineOperation<BroadcastEventInput, BroadcastEventResult, AgentPrincipal>({
  name: 'agent.broadcast_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:broadcast'],
  idempotent: false,
  input: BroadcastEventInput,
  // The webhook target rule the schema leaves to the operator's EGRESS_ALLOW_HOSTS (as for an event).
  contextRules: (raw, ctx) => addWebhookTargetIssues([], (raw as { actions?: unknown } | null)?.actions, ctx.config.egressAllowHosts),
  // Not a writing operation: the bulk publish is the publish path (its store groups its own
  // commits), run through ctx.call outside any transaction; the audit row follows it, one statement.
  handler: async (input, ctx) => {
    try {
      requireAdminUser(ctx.principal);
    } catch (err) {
      throw refusal('forbidden', (err as Error).message, errorEnvelope('forbidden_admin_only', null));
    }
    const emails = input.recipients.map(normalizeEmail);
    const eventId = broadcastEventId(input);
    let delivered: BroadcastRow[];
    if (input.tools_token_id === undefined) {
      delivered = emails.map((email, i) => ({ email, error: 'no_token', error_envelope: errorEnvelope('no_token', rowErrorField('no_token', i)) }));
    } else {
      const tools = await principalForToolsToken(ctx.em, input.tools_token_id, ctx.principal.userId);
      if (!tools)
        throw refusal('forbidden', 'tools_token_id is not an active tools-claim token of yours', errorEnvelope('tools_token_not_owned', 'tools_token_id'));
      const raw = {
        event: Object.fromEntries(
          Object.entries({
            spec_version: '2',
            event_id: eventId,
            event_type: input.event_type,
            severity: input.severity,
            title: input.title,
            occurred_at: ctx.clock.now().toISOString(),
            summary: input.summary,
            markdown_body: input.markdown_body,
            actions: input.actions,
            project_slug: input.project_slug,
          }).filter(([, v]) => v !== undefined),
        ),
        recipients: emails.map((email) => ({ type: 'email' as const, email })),
        auto_claim: input.auto_claim,
      };
      // The bulk operation, as the tools-token, through the runner: its own schema and context rules
      // (namespace of the tools-token, actions) apply; their issues are reported in this tool's names.
      const onInvalid = (found: Issue[]) => {
        const issues = found.map((i) => ({ ...i, field: toolField(i.field) }));
        const detail = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
        return refusal('validation', detail, errorEnvelope('schema_invalid', issues[0]?.field ?? null, detail), issues);
      };
      try {
        delivered = (await ctx.call(publishBulk, raw, { as: tools, onInvalid })).results.map(toRow);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'cross_project_blocked') {
          const code = typeof err.extra.reason === 'string' ? err.extra.reason : err.code;
          throw refusal('forbidden', err.message, errorEnvelope(code, 'project_slug', err.message));
        }
        throw err;
      }
    }
    const failed = delivered.filter((r) => r.error !== undefined).length;
    await insertToolAudit(ctx.em, ctx, {
      tool: 'broadcast_event',
      action: 'events.broadcast',
      targetType: 'event',
      targetId: eventId,
      summary: {
        event_type: input.event_type,
        severity: input.severity,
        recipients: emails.length,
        delivered: emails.length - failed,
        failed,
        tools_token_id: input.tools_token_id ?? null,
        project_slug: input.project_slug ?? null,
        auto_claim: input.auto_claim,
      },
    });
    return { ok: failed === 0, event_id: eventId, delivered };
  },
});
