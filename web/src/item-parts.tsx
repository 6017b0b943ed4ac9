// Pieces of an inbox item shared by the list and the item page: severity, tone, external status,
// resolved chip, fire count, actor. Styling by class only (the CSP allows no inline styles).
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { Time } from './ui.js';

const SEVERITIES = new Set(['critical', 'warn', 'info', 'success']);
const TONES = new Set(['neutral', 'positive', 'negative']);

/** CSS classes of an item from its severity, tone and read state (unknown values get none). */
export function itemClasses(item: InboxItem, base: string): string {
  const c = [base];
  if (item.severity && SEVERITIES.has(item.severity)) c.push(`sev-${item.severity}`);
  if (item.tone && TONES.has(item.tone)) c.push(`tone-${item.tone}`);
  c.push(item.read ? 'is-read' : 'is-unread');
  if (item.resolvedAt) c.push('is-resolved');
  return c.join(' ');
}

export function Severity({ item }: { item: InboxItem }) {
  if (!item.severity) return null;
  return <span class={`severity sev-${SEVERITIES.has(item.severity) ? item.severity : 'other'}`}>{item.severity}</span>;
}

export function Meta({ item }: { item: InboxItem }) {
  return (
    <p class="meta">
      {item.externalStatus && (
        <span class="ext-status">
          {item.externalStatus} <Time at={item.externalStatusAt} />
        </span>
      )}
      {item.resolvedAt && <span class="chip chip-resolved">Resolved</span>}
      {item.fireCount > 1 && <span class="fires">Fired {item.fireCount} times</span>}
      {item.actor && <span class="actor">{item.actor.name ? `${item.actor.name} <${item.actor.email}>` : item.actor.email}</span>}
      <span class="when">
        <Time at={item.occurredAt ?? item.createdAt} />
      </span>
      {!item.read && <span class="unread-dot">Unread</span>}
    </p>
  );
}
