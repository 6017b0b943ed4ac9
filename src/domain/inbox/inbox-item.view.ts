// The inbox item as a person sees it (InboxService's InboxItem): the notification, and for an
// inbound event's row every event field from its delivery. Plain data with ISO times; the Connect
// transport maps it to protobuf. Never carries an action's webhook_url (the receiver's address
// stays on the server: a webhook action is clicked through AccountService.ClickAction).
import { z } from 'zod';
import { actionTypeOf, type StoredAction } from '../actions/action-callback.rules.js';
import { iso } from '../timestamps.js';
import type { InboxItemRow } from './inbox-view.repository.js';
import type { ItemState } from './inbox.limits.js';
import { groupKeyOf } from './grouping.rules.js';

export interface InboxActionView {
  index: number;
  label: string;
  kind: 'url' | 'webhook';
  /** url actions only. */
  url?: string;
  actionType?: string;
}

export interface InboxSupplementView {
  id: string;
  markdownBody: string;
  createdAt: string;
}

export interface InboxItemView {
  notificationId: string;
  type: string;
  title: string;
  summary?: string;
  read: boolean;
  readAt?: string;
  createdAt: string;
  updatedAt: string;
  actor?: { email: string; name: string };
  targetUrl?: string;
  deliveryId?: string;
  eventType?: string;
  severity?: string;
  tone?: string;
  markdownBody?: string;
  markdownBodyRendering?: string;
  externalUrl?: string;
  externalStatus?: string;
  externalStatusAt?: string;
  resolvedAt?: string;
  resolutionNote?: string;
  /** 1 for a first arrival, 0 for rows that are not events. */
  fireCount: number;
  labels: Record<string, string>;
  supplements: InboxSupplementView[];
  actions: InboxActionView[];
  occurredAt?: string;
  /** Where the row is: `inbox`, `snoozed` or `done`. */
  state: ItemState;
  /** Rows with the same key are repeats of one kind from one sender (grouping.rules.ts). */
  groupKey: string;
  /** The row's place in the lists (newest first): its creation, or when it came back from snooze. */
  listedAt: string;
  snoozedUntil?: string;
  doneAt?: string;
}

/** Notification id (uuid) of the InboxService requests; the same message as the agent tools. */
export const NotificationIdField = z.uuid({ error: 'must be a UUID' });

const DEFAULT_RENDERING = 'collapsed';

export function toInboxItemView(r: InboxItemRow): InboxItemView {
  const v: InboxItemView = {
    notificationId: r.id,
    type: r.type,
    title: r.title,
    read: r.read_at !== null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    fireCount: r.fire_count === null ? 0 : Number(r.fire_count),
    labels: {},
    supplements: (r.supplements ?? []).map((s) => ({ id: s.id, markdownBody: s.markdown_body, createdAt: iso(s.created_at) })),
    actions: [],
    state: r.state,
    groupKey: groupKeyOf(r),
    listedAt: iso(r.listed_at),
  };
  if (r.snoozed_until !== null) v.snoozedUntil = iso(r.snoozed_until);
  if (r.done_at !== null) v.doneAt = iso(r.done_at);
  if (r.summary !== null) v.summary = r.summary;
  if (r.read_at !== null) v.readAt = iso(r.read_at);
  const actor = actorOf(r);
  if (actor) v.actor = actor;
  if (r.delivery_id === null) {
    // Not an event: the body is the notification's own text, the target a place in fluxdesk.
    if (r.body !== null) v.markdownBody = r.body;
    if (r.target_url !== null) v.targetUrl = r.target_url;
    return v;
  }
  v.deliveryId = r.delivery_id;
  // The inbox row keeps the latest arrival's title and body (a repeat updates them).
  if (r.body !== null) {
    v.markdownBody = r.body;
    v.markdownBodyRendering = r.markdown_body_rendering ?? DEFAULT_RENDERING;
  }
  if (r.event_type !== null) v.eventType = r.event_type;
  if (r.severity !== null) v.severity = r.severity;
  if (r.tone !== null) v.tone = r.tone;
  if (r.external_url !== null) v.externalUrl = r.external_url;
  if (r.external_status !== null) v.externalStatus = r.external_status;
  if (r.external_status_at !== null) v.externalStatusAt = iso(r.external_status_at);
  if (r.resolved_at !== null) v.resolvedAt = iso(r.resolved_at);
  if (r.resolution_note !== null) v.resolutionNote = r.resolution_note;
  if (r.occurred_at !== null) v.occurredAt = iso(r.occurred_at);
  if (r.labels) for (const [k, val] of Object.entries(r.labels)) if (typeof val === 'string') v.labels[k] = val;
  v.actions = (r.actions ?? []).map((a, index) => actionView(a as StoredAction, index));
  return v;
}

/** An event's actor as sent, else the user who caused the row (a forward, an assignment). */
function actorOf(r: InboxItemRow): { email: string; name: string } | undefined {
  const a = r.event_actor;
  if (a && typeof a.email === 'string') return { email: a.email, name: typeof a.name === 'string' ? a.name : '' };
  // A row whose actor user no longer exists shows no actor.
  if (r.actor_user_id && r.actor_email !== null) return { email: r.actor_email, name: r.actor_name ?? '' };
  return undefined;
}

/** Label, kind and (url actions only) the link: picked field by field, so webhook_url can never pass. */
function actionView(a: StoredAction, index: number): InboxActionView {
  const kind = actionTypeOf(a);
  const v: InboxActionView = { index, label: a.label, kind };
  if (kind === 'url' && typeof a.url === 'string') v.url = a.url;
  if (a.action_type !== undefined) v.actionType = a.action_type;
  return v;
}
