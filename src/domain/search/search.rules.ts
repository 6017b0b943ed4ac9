// Pure rules of the cross-type search (SPEC C `search`): limits, the score, snippets and the
// absolute links of each hit type (the matched fields per type live with the SQL, search.repository.ts).
import { snippetAround } from '../docs/docs.rules.js';
import { feedbackUrl as feedbackLink } from '../feedback/feedback.rules.js';
import { inboxLink } from '../nudges/nudge.rules.js';
import { taskUrl } from '../tasks/task.view.js';
import { iso } from '../timestamps.js';
import { SEARCH_LIMITS } from './search.limits.js';

export const SEARCH_TYPES = ['feedback', 'task', 'meeting', 'notification', 'comment'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export { SEARCH_LIMITS };

/**
 * The score, in [0.25, 1): a hit in the type's title weighs 0.5, in any other field 0.25, plus
 * half the normalised full-text rank (ts_rank with normalisation 32, i.e. rank/(rank+1), on the
 * 'simple' configuration, title weighted A over the other fields B). Rounded to 4 decimals so the
 * same hit scores the same on PostgreSQL and PGlite.
 */
export const SCORE = { titleWeight: 0.5, otherWeight: 0.25, rankWeight: 0.5 } as const;

export function roundScore(v: number | string): number {
  return Math.round(Number(v) * 10_000) / 10_000;
}

export const meetingUrl = (publicBaseUrl: string, meetingId: string): string => `${publicBaseUrl}/meetings/${encodeURIComponent(meetingId)}`;

/**
 * The link of a hit. `linkRef` comes from SQL: a task's code (its id while a draft), a comment's
 * task code (or task id) or feedback id; unused for the other types. A comment links to its task
 * or feedback page with the anchor `#comment-<id>`.
 */
export function hitUrl(publicBaseUrl: string, hit: { type: SearchType; id: string; parentType: 'task' | 'feedback' | null; linkRef: string | null }): string {
  const ref = hit.linkRef ?? hit.id;
  switch (hit.type) {
    case 'task':
      return taskUrl({ publicBaseUrl }, { code: ref, id: hit.id });
    case 'meeting':
      return meetingUrl(publicBaseUrl, hit.id);
    case 'notification':
      return inboxLink(publicBaseUrl, hit.id);
    case 'feedback':
      return feedbackLink({ publicBaseUrl }, hit.id);
    case 'comment':
      return `${hit.parentType === 'task' ? taskUrl({ publicBaseUrl }, { code: ref, id: ref }) : feedbackLink({ publicBaseUrl }, ref)}#comment-${hit.id}`;
  }
}

/**
 * The snippet: around the first occurrence of the query in the matched field. `window` is the
 * part of the field SQL cut out around the match (starting at 1-based `windowStart` of a field
 * `fieldLength` long), so long bodies never leave the database whole.
 */
export function hitSnippet(query: string, window: string, windowStart: number, fieldLength: number): string {
  return snippetAround(window, query, {
    context: SEARCH_LIMITS.snippetContext,
    cutBefore: windowStart > 1,
    cutAfter: windowStart - 1 + window.length < fieldLength,
  });
}

/** A meeting's snippet also says when it is: `<title> (2026-11-23T10:00:00.000Z – 2026-11-23T10:30:00.000Z)`. */
export function meetingSnippet(snippet: string, startsAt: Date | string, endsAt: Date | string | null): string {
  return `${snippet} (${iso(startsAt)}${endsAt === null ? '' : ` – ${iso(endsAt)}`})`;
}
