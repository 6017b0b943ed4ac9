// InboundEvent validation (SPEC "InboundEvent", "ActionButton", "RecipientHint", "Inbound event
// validation rules"). The schema catches shape and limits; `eventContextIssues` adds the rules
// that need the caller, the channel, the clock or the operator's config (EGRESS_ALLOW_HOSTS for
// webhook targets). Both run on every request and are merged,
// so all issues are reported at once.
import { z } from 'zod';
import type { Issue } from '../errors.js';
import type { Channel } from '../context.js';
import type { TokenKind } from '../principal.js';
import { urlIssues } from '../urls.rules.js';
import { isAllowlistedTarget, urlHostClass } from '../egress-policy.rules.js';
import {
  ACTION_TYPES,
  EVENT_ID_PATTERN,
  EVENT_LIMITS as L,
  EXTERNAL_STATUSES,
  OCCURRED_AT_FUTURE_MS,
  OCCURRED_AT_PAST_MS,
  RENDERINGS,
  SEVERITIES,
  SPEC_VERSION,
  TONES,
} from './event.limits.js';

const HTTPS_URL = /^https:\/\/[^\s]+$/;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Webhook targets refused when the event is accepted (SPEC ActionButton: localhost, 127.*, 0.0.0.0),
 * classed by the one egress policy: a localhost name, or an IP literal of the loopback or
 * unspecified class (also in IPv6 forms: `[::1]`, `[::ffff:127.0.0.1]`). Every other non-public
 * address is refused when the action is clicked (egress-client.ts, same policy, after DNS).
 */
const forbiddenWebhookHost = (url: string): boolean => {
  const c = urlHostClass(url);
  return c === 'loopback' || c === 'unspecified';
};

/**
 * An https URL that carries no secret (SPEC "What the service does" 3, Events rule 5): no userinfo,
 * no credential parameter in the query or the fragment. Every URL field of an event gets the same
 * rule, so a token cannot be stored (and shown back as `targetUrl`) through an action link either.
 */
const httpsUrl = (max: number) =>
  z
    .string()
    .max(max)
    .regex(HTTPS_URL, { error: 'must start with https://' })
    .superRefine((u, ctx) => {
      for (const issue of urlIssues(u)) {
        // A string that does not even start with https:// is already reported as invalid_format.
        if (issue.code === 'invalid_format' && !HTTPS_URL.test(u)) continue;
        ctx.addIssue({ code: 'custom', message: issue.message, params: { code: issue.code } });
      }
    });

/**
 * A webhook target in the schema: a string of at most EVENT_LIMITS.urlMax characters. Its URL rules depend on the
 * operator's EGRESS_ALLOW_HOSTS, a value of the call's context: addWebhookTargetIssues, run by
 * eventContextIssues (so one rule, in one place, reports every issue of the field in its order).
 */
const webhookUrl = z
  .string()
  .max(L.urlMax)
  .meta({ maxLength: L.urlMax, pattern: HTTPS_URL.source, description: 'https; plain http only to a host the operator lists in EGRESS_ALLOW_HOSTS' });

/**
 * The URL rules of each action's `webhook_url` (raw input, checked defensively), added to `out`:
 * those of every event URL (httpsUrl: https, a URL, no credentials, same codes and messages) and
 * not localhost / 127.* / 0.0.0.0 — except for a host on `allowHosts` (EGRESS_ALLOW_HOSTS), which may
 * also be plain http on loopback (a receiver on a developer's machine); its credential rules stay.
 * The same allowlist is applied again when the action is clicked.
 */
export function addWebhookTargetIssues(out: Issue[], actions: unknown, allowHosts: ReadonlySet<string>, prefix = 'actions'): Issue[] {
  if (!Array.isArray(actions)) return out;
  for (let i = 0; i < actions.length; i++) {
    const a: unknown = actions[i];
    if (!isObj(a) || typeof a.webhook_url !== 'string') continue;
    const url = a.webhook_url;
    const strict = !isAllowlistedTarget(url, allowHosts);
    const https = HTTPS_URL.test(url);
    if (strict && !https) out.push({ field: `${prefix}[${i}].webhook_url`, code: 'invalid_format', message: 'must start with https://' });
    for (const issue of urlIssues(url)) {
      // Unparsable matters once the scheme is right (strict): not https is reported above; an allowlisted URL parsed.
      if (issue.code === 'invalid_format' && !(strict && https)) continue;
      out.push({ field: `${prefix}[${i}].webhook_url`, code: issue.code, message: issue.message });
    }
    if (strict && forbiddenWebhookHost(url)) {
      out.push({ field: `${prefix}[${i}].webhook_url`, code: 'forbidden_host', message: 'must not target localhost, 127.* or 0.0.0.0' });
    }
  }
  return out;
}

const email = z.email({ error: 'must be a valid email address' }).max(L.emailMax);

export const ActionButtonSchema = z.strictObject({
  label: z.string().min(1).max(L.actionLabelMax),
  action_type: z.enum(ACTION_TYPES).default('url'),
  url: httpsUrl(L.urlMax).optional(),
  webhook_url: webhookUrl.optional(),
});

export const RecipientHintSchema = z.strictObject({
  email: email.optional(),
  user_id: z.uuid({ error: 'must be a UUID' }).optional(),
  display_hint: z.string().max(L.displayHintMax).optional(),
});

export const RecipientSchema = z.strictObject({
  type: z.enum(['email']),
  value: email,
});

/**
 * An event's title: 1 to EVENT_LIMITS.titleMax characters on a single line. Publishing and the
 * moderation edit (which trims first: pass `z.string().trim()`) apply this one rule.
 */
export const eventTitle = (base: z.ZodString = z.string()) =>
  base
    .min(1)
    .max(L.titleMax)
    .regex(/^[^\r\n]*$/, { error: 'must be a single line' });

export const InboundEventSchema = z.strictObject({
  spec_version: z.string().regex(new RegExp(`^${SPEC_VERSION}$`), { error: `must be the text "${SPEC_VERSION}" (version 1 is no longer accepted)` }),
  event_id: z
    .string()
    .min(1)
    .max(L.eventIdMax)
    .regex(EVENT_ID_PATTERN, { error: `must match ${EVENT_ID_PATTERN.source}` }),
  event_type: z.string().min(1).max(L.eventTypeMax),
  severity: z.enum(SEVERITIES),
  title: eventTitle(),
  occurred_at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset (e.g. 2026-01-01T10:00:00Z)' }),
  summary: z.string().max(L.summaryMax).optional(),
  markdown_body: z.string().max(L.markdownBodyMax).optional(),
  markdown_body_rendering: z.enum(RENDERINGS).optional(),
  external_url: httpsUrl(L.urlMax).optional(),
  external_status: z.enum(EXTERNAL_STATUSES).optional(),
  actor: z.strictObject({ email, name: z.string().max(L.actorNameMax).optional() }).optional(),
  labels: z
    .record(z.string().min(1).max(L.labelKeyMax), z.string().max(L.labelValueMax))
    .refine((r) => Object.keys(r).length <= L.labelsMax, { error: `must have at most ${L.labelsMax} entries`, params: { code: 'too_many' } })
    .optional(),
  actions: z.array(ActionButtonSchema).max(L.actionsMax).optional(),
  recipient_hint: RecipientHintSchema.optional(),
  recipient: RecipientSchema.optional(),
  project_slug: z.string().min(1).max(L.projectSlugMax).optional(),
  tone: z.enum(TONES).optional(),
  locale: z.string().max(L.localeMax).regex(LOCALE, { error: 'must be a BCP-47 language tag such as en or zh-TW' }).optional(),
});

export type InboundEvent = z.infer<typeof InboundEventSchema>;
export type ActionButton = z.infer<typeof ActionButtonSchema>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The older endpoint stores an unlisted `external_status` as null instead of rejecting it. */
export function normalizeLegacyEvent(raw: unknown): unknown {
  if (!isObj(raw) || raw.external_status === undefined) return raw;
  const ok = typeof raw.external_status === 'string' && (EXTERNAL_STATUSES as readonly string[]).includes(raw.external_status);
  if (ok) return raw;
  const { external_status: _dropped, ...rest } = raw;
  return rest;
}

export interface EventRuleContext {
  channel: Channel;
  tokenKind: TokenKind;
  allowedEventPrefix: string;
  now: Date;
  /** The operator's EGRESS_ALLOW_HOSTS (DomainConfig.egressAllowHosts): webhook targets exempt from https / not-loopback. */
  egressAllowHosts: ReadonlySet<string>;
}

/** Rules that need the caller, the channel, the clock or the operator's config (checked on the raw input, defensively). */
export function eventContextIssues(raw: unknown, c: EventRuleContext): Issue[] {
  if (!isObj(raw)) return [];
  const issues: Issue[] = [];

  // Webhook targets first: the rest of one field's own rules, before the rules across fields below.
  addWebhookTargetIssues(issues, raw.actions, c.egressAllowHosts);

  // Rule 3: occurred_at within (now - 24 h, now + 5 min).
  if (typeof raw.occurred_at === 'string' && InboundEventSchema.shape.occurred_at.safeParse(raw.occurred_at).success) {
    const t = Date.parse(raw.occurred_at);
    const now = c.now.getTime();
    if (!(t > now - OCCURRED_AT_PAST_MS)) issues.push({ field: 'occurred_at', code: 'too_old', message: 'must be later than now minus 24 hours' });
    else if (!(t < now + OCCURRED_AT_FUTURE_MS)) issues.push({ field: 'occurred_at', code: 'in_future', message: 'must be earlier than now plus 5 minutes' });
  }

  // Namespace gate (Authentication 8): /api/v1 only.
  if (c.channel === 'v1' && typeof raw.event_type === 'string' && raw.event_type.length > 0 && !raw.event_type.startsWith(c.allowedEventPrefix)) {
    issues.push({ field: 'event_type', code: 'namespace_mismatch', message: `must start with your token's allowed prefix "${c.allowedEventPrefix}"` });
  }

  // Rule 2: recipient / recipient_hint.
  const hasHint = raw.recipient_hint !== undefined;
  const hasRecipient = raw.recipient !== undefined;
  if (hasHint && hasRecipient) {
    issues.push({ field: 'recipient', code: 'recipient_conflict', message: 'send either recipient or recipient_hint, not both' });
  } else if (c.tokenKind === 'moderation' && !hasHint && !hasRecipient) {
    issues.push({
      field: 'recipient_hint',
      code: 'recipient_hint_required',
      message: 'a moderation token needs recipient (or the deprecated recipient_hint) on every event',
    });
  } else if (c.tokenKind !== 'moderation' && (hasHint || hasRecipient)) {
    issues.push({
      field: hasRecipient ? 'recipient' : 'recipient_hint',
      code: 'recipient_hint_forbidden',
      message: 'only moderation tokens may address a recipient; an event goes to the token owner',
    });
  }
  if (isObj(raw.recipient_hint) && Object.keys(raw.recipient_hint).length === 0) {
    issues.push({ field: 'recipient_hint', code: 'required', message: 'needs at least one of email, user_id, display_hint' });
  }

  // ActionButton: the URL field that matches action_type is required; the other is refused.
  if (Array.isArray(raw.actions)) {
    raw.actions.forEach((a, i) => {
      if (!isObj(a)) return;
      const type = a.action_type ?? 'url';
      if (type === 'url') {
        if (a.url === undefined) issues.push({ field: `actions[${i}].url`, code: 'required', message: 'is required when action_type is url' });
        if (a.webhook_url !== undefined)
          issues.push({ field: `actions[${i}].webhook_url`, code: 'not_allowed', message: 'only allowed when action_type is webhook' });
      } else if (type === 'webhook') {
        if (a.webhook_url === undefined)
          issues.push({ field: `actions[${i}].webhook_url`, code: 'required', message: 'is required when action_type is webhook' });
        if (a.url !== undefined) issues.push({ field: `actions[${i}].url`, code: 'not_allowed', message: 'only allowed when action_type is url' });
      }
    });
  }
  return issues;
}
