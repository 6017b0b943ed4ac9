// Grouping of repeats: an inbound event's row belongs to the group of its token and event_type (a
// CI pipeline's failures, a monitor's alerts of one kind); every other row is a group of its own.
// The APIs list items, each with its groupKey; the web app collapses a group into one row.

export function groupKeyOf(r: { id: string; token_id: string | null; event_type: string | null }): string {
  return r.token_id !== null && r.event_type !== null ? `${r.token_id}:${r.event_type}` : `notification:${r.id}`;
}
