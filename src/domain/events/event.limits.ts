// Every limit and vocabulary of an inbound event, named once (docs/contract.md "InboundEvent",
// "ActionButton", "RecipientHint", "Inbound event validation rules", Limits "Event fields"). The
// zod schemas, the moderation edit, the entities, the served protocol texts ({{limit.event.<name>}})
// and the web form read them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items. */
export const EVENT_LIMITS = {
  eventIdMax: 120,
  eventTypeMax: 60,
  titleMax: 200,
  summaryMax: 500,
  markdownBodyMax: 8000,
  /** external_url, an action's url and webhook_url. */
  urlMax: 2000,
  /** actor.email, recipient.value, recipient_hint.email. */
  emailMax: 120,
  actorNameMax: 80,
  labelsMax: 20,
  labelKeyMax: 80,
  labelValueMax: 80,
  actionsMax: 4,
  actionLabelMax: 40,
  displayHintMax: 80,
  projectSlugMax: 80,
  /** A BCP-47 tag (RFC 5646 advises room for 35 characters). */
  localeMax: 35,
  /** Resolving a delivery: its optional note. */
  resolutionNoteMax: 500,
  /** Recipients of one bulk fan-out or broadcast_event, also after a group is expanded (SPEC Limits "Bulk recipients"). */
  bulkRecipientsMax: 100,
  /** broadcast_event: its event_id_prefix. */
  eventIdPrefixMax: 80,
  /** supplement_inbound_event: the follow-up's markdown_body (SPEC Limits "Agent tool bounds"; the REST supplement takes markdownBodyMax). */
  toolSupplementMax: 4000,
  /** GET /api/v1/event-types counts the deliveries of this many days. */
  eventTypeWindowDays: 90,
  /** markdown_body_rendering `preview`: about this many characters of plain text as the toggle text. */
  previewChars: 200,
} as const;

export type EventLimitName = keyof typeof EVENT_LIMITS;

/** Validation rule 3: occurred_at lies within (now - 24 h, now + 5 min). */
export const OCCURRED_AT_PAST_MS = 24 * 60 * 60 * 1000;
export const OCCURRED_AT_FUTURE_MS = 5 * 60 * 1000;

/** The one accepted spec_version (version 1 is refused). */
export const SPEC_VERSION = '2';
export const EVENT_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

export const SEVERITIES = ['critical', 'warn', 'info', 'success'] as const;
export const EXTERNAL_STATUSES = ['firing', 'resolved', 'pending', 'approved', 'rejected', 'withdrawn'] as const;
/** An event that moves external_status to one of these creates no new notification and no nudge. */
export const TERMINAL_EXTERNAL_STATUSES = ['resolved', 'approved', 'rejected', 'withdrawn'] as const satisfies readonly (typeof EXTERNAL_STATUSES)[number][];
export const TONES = ['neutral', 'positive', 'negative'] as const;
export const RENDERINGS = ['collapsed', 'expanded', 'preview'] as const;
export const ACTION_TYPES = ['url', 'webhook'] as const;

/** Widths of the varchar columns that hold one of these vocabularies' words (deliveries). */
export const EVENT_COLUMNS = { severity: 10, tone: 10, rendering: 10, externalStatus: 10 } as const;

/** Top-level keys always refused (validation rule 1). */
export const FORBIDDEN_EVENT_KEYS: ReadonlySet<string> = new Set([
  'body',
  'payload',
  'content',
  'full_text',
  'attachment',
  'attachments',
  'files',
  'secret',
  'token',
  'api_key',
  'password',
  'credential',
  'credentials',
  'private_key',
  'prompt',
  'completion',
  'ai_response',
  'chat_history',
  'recipients',
]);
export const LEGACY_EVENT_KEYS: ReadonlyMap<string, string> = new Map([
  ['action_label', 'flat "action_label" was removed: use actions[] with {label, action_type, url}'],
  ['action_url', 'flat "action_url" was removed: use actions[] with {label, action_type, url}'],
  ['source', '"source" was removed in spec_version 2'],
]);

/**
 * Replaces `{{limit.event.<name>}}` in a text (the served protocol texts) by that limit, so the text
 * states the numbers the service enforces. An unknown placeholder throws.
 */
export function fillEventLimitPlaceholders(text: string): string {
  return text.replace(/\{\{limit\.event\.(\w+)\}\}/g, (whole, name: string) => {
    if (!Object.hasOwn(EVENT_LIMITS, name)) throw new Error(`unknown event limit placeholder ${whole}`);
    return String(EVENT_LIMITS[name as EventLimitName]);
  });
}
