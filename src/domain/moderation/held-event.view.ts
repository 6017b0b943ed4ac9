// The shape of one hold-for-forwarding queue entry, as ModerationService returns it.
import { z } from 'zod';
import { iso } from '../timestamps.js';
import type { HeldEventRow } from './moderation.repository.js';

export const HELD_STATUSES = ['pending', 'forwarded', 'dismissed'] as const;

export const HeldEventView = z.object({
  entry_id: z.uuid(),
  delivery_id: z.uuid(),
  token_id: z.uuid(),
  token_label: z.string(),
  status: z.enum(HELD_STATUSES),
  event_id: z.string(),
  event_type: z.string(),
  severity: z.string(),
  /** Current text: the event's (refreshed by repeats while unedited) or the admin's edit. */
  title: z.string(),
  summary: z.string().nullable(),
  markdown_body: z.string().nullable(),
  external_url: z.string().nullable(),
  external_status: z.string().nullable(),
  /** The sender's suggestion: recipient.value, else recipient_hint.email. Never routes by itself. */
  suggested_email: z.string().nullable(),
  recipient_hint: z.object({ email: z.string().optional(), user_id: z.string().optional(), display_hint: z.string().optional() }).nullable(),
  fire_count: z.number().int(),
  edited: z.boolean(),
  occurred_at: z.string(),
  received_at: z.string(),
  updated_at: z.string(),
  forwarded_to_user_id: z.uuid().nullable(),
  forwarded_to_email: z.string().nullable(),
  forwarded_at: z.string().nullable(),
  notification_id: z.uuid().nullable(),
  dismissed_at: z.string().nullable(),
  dismiss_reason: z.string().nullable(),
});
export type HeldEventView = z.infer<typeof HeldEventView>;

const isoOrNull = (v: Date | string | null) => (v === null ? null : iso(v));

export function suggestedEmail(r: Pick<HeldEventRow, 'recipient' | 'recipient_hint'>): string | null {
  return r.recipient?.value ?? r.recipient_hint?.email ?? null;
}

export function toHeldEventView(r: HeldEventRow): HeldEventView {
  return {
    entry_id: r.id,
    delivery_id: r.delivery_id,
    token_id: r.token_id,
    token_label: r.token_label,
    status: r.status,
    event_id: r.event_id,
    event_type: r.event_type,
    severity: r.severity,
    title: r.title,
    summary: r.summary,
    markdown_body: r.body,
    external_url: r.external_url,
    external_status: r.external_status,
    suggested_email: suggestedEmail(r),
    recipient_hint: r.recipient_hint,
    fire_count: r.fire_count,
    edited: r.edited_at !== null,
    occurred_at: iso(r.occurred_at),
    received_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    forwarded_to_user_id: r.forwarded_to_user_id,
    forwarded_to_email: r.forwarded_to_email,
    forwarded_at: isoOrNull(r.forwarded_at),
    notification_id: r.notification_id,
    dismissed_at: isoOrNull(r.dismissed_at),
    dismiss_reason: r.dismiss_reason,
  };
}
